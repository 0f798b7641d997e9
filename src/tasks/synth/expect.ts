import { resourceOp, wireFields } from '../../episodes/resource-op.js';
import type { StateAssertion } from '../../wire/schema-types.js';
import type { StatedCall } from './phrase.js';

/** A write task's assertions, and for each the call (its index) whose effect it checks. */
export interface PlannedState {
  expect: StateAssertion[];
  by: number[];
}

const isPrimitive = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * What a write chain's calls leave in the world, as `expect` assertions keyed the way the world keys collections
 * (from the calls' arguments as they ran, links bound): a create → a resource `exists` in its collection with the
 * members the query states; an update → the resource with that id `exists` with them; a delete → that id is
 * `deleted`; a create whose resource a later call deletes is checked by that delete alone, and one it updates by
 * the members the update leaves. Only stated values are checked, so the query says every value an assertion reads;
 * a link's value (a created id) shows only in the collection or id, which the reference calls fixed. Undefined when
 * a call changes nothing the world keeps (a read, a list, a non-REST tool) or a create or update states no member.
 */
export function plannedState(
  calls: readonly StatedCall[],
  bound: readonly Record<string, unknown>[],
): PlannedState | undefined {
  const ops = calls.map((call, i) => resourceOp(call.tool, bound[i]!));
  const expect: StateAssertion[] = [];
  const by: number[] = [];
  for (const [i, call] of calls.entries()) {
    const op = ops[i];
    if (!op || op.kind === 'read' || op.kind === 'list') return undefined;
    // In a chain a later delete or update of an item of this collection is of the resource just created (its id
    // fed the call): deleted, the create leaves nothing to check; updated, the members the update sets are its.
    const later = ops.slice(i + 1).filter((o) => o?.collection.key === op.collection.key);
    if (op.kind === 'create' && later.some((o) => o?.kind === 'delete')) continue;
    const overwritten = new Set(
      op.kind === 'create' ? later.flatMap((o) => (o?.kind === 'update' ? Object.keys(o.body) : [])) : [],
    );
    const collection = op.collection.key.slice(op.collection.api.length + 1);
    // The API's root as a collection has no path an assertion can name.
    if (!collection.startsWith('/')) return undefined;
    const target = { api: op.collection.api, collection };
    const members = Object.entries(wireFields(call.tool, call.given).body).filter(([, value]) => isPrimitive(value));
    const where = Object.fromEntries(members.filter(([member]) => !overwritten.has(member)));
    const stated = Object.keys(where).length > 0 ? { where } : {};
    if (op.kind === 'delete') expect.push({ assert: 'deleted', ...target, id: op.id });
    // Every member the create stated, the update replaced: the update's check is the create's too.
    else if (!stated.where && op.kind === 'create' && members.length > 0) continue;
    else if (!stated.where) return undefined;
    else if (op.kind === 'create') expect.push({ assert: 'exists', ...target, ...stated });
    else expect.push({ assert: 'exists', ...target, id: op.id, ...stated });
    by.push(i);
  }
  return { expect, by };
}
