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
 * `deleted`; a create whose resource a later call deletes is checked by that delete alone. Only stated values are checked, so the query says every value an assertion reads; a link's value
 * (a created id) shows only in the collection or id, which the reference calls fixed. Undefined when a call changes
 * nothing the world keeps (a read, a list, a non-REST tool) or a create states no member to find its resource by.
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
    // In a chain the delete of an item of this collection is of the resource just created (its id fed the delete).
    const deletedLater = ops.slice(i + 1).some((o) => o?.kind === 'delete' && o.collection.key === op.collection.key);
    if (op.kind === 'create' && deletedLater) continue;
    const collection = op.collection.key.slice(op.collection.api.length + 1);
    // The API's root as a collection has no path an assertion can name.
    if (!collection.startsWith('/')) return undefined;
    const target = { api: op.collection.api, collection };
    const where = Object.fromEntries(
      Object.entries(wireFields(call.tool, call.given).body).filter(([, value]) => isPrimitive(value)),
    );
    const stated = Object.keys(where).length > 0 ? { where } : {};
    if (op.kind === 'create') {
      if (!stated.where) return undefined;
      expect.push({ assert: 'exists', ...target, ...stated });
    } else if (op.kind === 'update') expect.push({ assert: 'exists', ...target, id: op.id, ...stated });
    else expect.push({ assert: 'deleted', ...target, id: op.id });
    by.push(i);
  }
  return { expect, by };
}
