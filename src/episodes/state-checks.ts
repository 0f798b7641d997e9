import { isDeepStrictEqual } from 'node:util';
import { SafePattern } from '../library/safe-pattern.js';
import type { StateAssertion, StateCheck } from '../wire/schema-types.js';
import type { Json } from './resource-body.js';
import type { WorldState } from './world.js';

/** A task's `expect` assertions, their patterns compiled once: reads a world into one StateCheck per assertion. */
export type StateVerifier = (world: WorldState) => StateCheck[];

/**
 * The verifier of a task's assertions (schemas/trajectory.schema.json#/$defs/StateAssertion). A resource matches
 * when its id is the assertion's `id` (when given), each `where` member equals its own (primitives as text, as list
 * filters compare them, since a form-encoded body carries `"2000"` for 2000; objects and arrays as JSON) and each
 * `matching` pattern finds a match in its member's text (a string as is, anything else as JSON). Patterns run on
 * SafePattern: a task file's pattern must not hang the server either.
 */
export function stateVerifier(expect: readonly StateAssertion[]): StateVerifier {
  const checks = expect.map(assertionCheck);
  return (world) => checks.map((check) => check(world));
}

function assertionCheck(assertion: StateAssertion): (world: WorldState) => StateCheck {
  if (assertion.assert === 'deleted') {
    const id = String(assertion.id);
    return (world) => {
      const deleted = world.resources(assertion.api, assertion.collection).get(id) === null;
      return { held: deleted, matched: deleted ? 1 : 0 };
    };
  }
  const matches = matcher(assertion);
  const holds = (matched: number) =>
    assertion.assert === 'exists'
      ? matched > 0
      : assertion.assert === 'absent'
        ? matched === 0
        : matched === assertion.count;
  return (world) => {
    let matched = 0;
    for (const [id, value] of world.resources(assertion.api, assertion.collection))
      if (value !== null && matches(id, value)) matched++;
    return { held: holds(matched), matched };
  };
}

function matcher(assertion: Exclude<StateAssertion, { assert: 'deleted' }>): (id: string, value: Json) => boolean {
  const id = assertion.id === undefined ? undefined : String(assertion.id);
  const where = Object.entries(assertion.where ?? {});
  const patterns = Object.entries(assertion.matching ?? {}).map(
    ([member, source]) => [member, new SafePattern(source)] as const,
  );
  return (resourceId, value) =>
    (id === undefined || resourceId === id) &&
    where.every(([member, wanted]) => Object.hasOwn(value, member) && equal(value[member], wanted)) &&
    patterns.every(([member, pattern]) => Object.hasOwn(value, member) && pattern.test(text(value[member])));
}

function equal(actual: unknown, wanted: unknown): boolean {
  if (isPrimitive(actual) && isPrimitive(wanted)) return String(actual) === String(wanted);
  return isDeepStrictEqual(actual, wanted);
}

const isPrimitive = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
