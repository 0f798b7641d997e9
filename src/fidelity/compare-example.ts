import { idPrefix, valueClass, type ValueClass } from '../library/value-class.js';
import { nameKey } from '../simulator/synth/names.js';
import { isRecord } from './fields.js';

/** Items of an example's list compared: a documented list of 200 records would otherwise outweigh whole APIs. */
export const MAX_ITEMS = 3;

/** One scalar of a documented example beside the answer's value at the same place. */
export interface LeafComparison {
  /** JSON Pointer into the example. */
  path: string;
  expected: unknown;
  expectedClass: ValueClass;
  /** Whether the answer has a value at that place (a list's items align by index, the last one standing in). */
  present: boolean;
  got: unknown;
  /** The answer's class there: `object` or `array` where it holds a container instead. */
  gotClass: ValueClass | 'object' | 'array' | undefined;
}

export interface ExampleComparison {
  leaves: LeafComparison[];
  /** Every key of every object of the example, and whether the answer's object at that place has it. */
  keys: { path: string; present: boolean }[];
}

const pointer = (at: string, token: string | number) =>
  `${at}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`;

function classOf(value: unknown, key: string): LeafComparison['gotClass'] {
  if (Array.isArray(value)) return 'array';
  if (isRecord(value)) return 'object';
  return valueClass(value, key);
}

/**
 * The example walked against the answer: objects by key, lists item by item (the first MAX_ITEMS; an answer with
 * fewer items repeats its last, since a list's length is the caller's to choose), scalars classed by valueClass
 * under their field's name (a list's items under the list's). A place the answer lacks makes everything below it
 * absent.
 */
export function compareToExample(example: unknown, answer: unknown): ExampleComparison {
  const out: ExampleComparison = { leaves: [], keys: [] };
  const walk = (expected: unknown, got: unknown, present: boolean, at: string, key: string) => {
    if (Array.isArray(expected)) {
      const items = present && Array.isArray(got) ? got : [];
      expected.slice(0, MAX_ITEMS).forEach((item, i) => {
        const there = items.length > 0;
        walk(item, there ? items[Math.min(i, items.length - 1)] : undefined, there, pointer(at, i), key);
      });
      return;
    }
    if (isRecord(expected)) {
      const holder = present && isRecord(got) ? got : undefined;
      for (const [name, child] of Object.entries(expected)) {
        const has = holder !== undefined && Object.hasOwn(holder, name);
        out.keys.push({ path: pointer(at, name), present: has });
        walk(child, has ? holder[name] : undefined, has, pointer(at, name), nameKey(name));
      }
      return;
    }
    const expectedClass = valueClass(expected, key);
    if (expectedClass === undefined) return;
    out.leaves.push({
      path: at,
      expected,
      expectedClass,
      present,
      got: present ? got : undefined,
      gotClass: present ? classOf(got, key) : undefined,
    });
  };
  walk(example, answer, true, '', '');
  return out;
}

/** Whether two numbers agree in order of magnitude: the same sign and at most ten times apart (0 agrees with 0). */
export function sameMagnitude(a: number, b: number): boolean {
  if (a === 0 || b === 0) return a === b;
  if (Math.sign(a) !== Math.sign(b)) return false;
  const [small, large] = [Math.min(Math.abs(a), Math.abs(b)), Math.max(Math.abs(a), Math.abs(b))];
  return large <= small * 10;
}

/** A vendor id answered with the same prefix; undefined where the example has none. */
export function prefixAgrees(leaf: LeafComparison): boolean | undefined {
  const prefix = idPrefix(leaf.expected);
  if (prefix === undefined || !leaf.present) return undefined;
  return typeof leaf.got === 'string' && leaf.got.startsWith(prefix) && idPrefix(leaf.got) === prefix;
}
