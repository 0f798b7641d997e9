/**
 * The shape of an API's answers as its own documented 2xx bodies show it (issue #49): the keys they hold, nested, with
 * how often each is there and the JSON types of its values. An operation that documents no response schema answers in
 * this shape (Clicksend's `{http_code, response_code, response_msg, data}`, OSF's JSON:API envelope) rather than in a
 * shape guessed from its name; the prior's contexts then give the values.
 */
import type { JsonSchema } from '../../library/tool.js';

export interface ShapeNode {
  /** Values seen here. */
  n: number;
  /** JSON type (`object`, `array`, `string`, `integer`, `number`, `boolean`, `null`) → how many. */
  types: Record<string, number>;
  /** An object's keys, each with its own node. */
  keys?: Record<string, ShapeNode>;
  /** A list's items, all in one node. */
  items?: ShapeNode;
}

/** Bodies an API needs before its shape speaks for it: one body is one operation's. */
export const MIN_BODIES = 2;
const MAX_DEPTH = 6;
/** Keys kept per object, the most frequent first: a body of a thousand keys is one vendor's dump. */
const MAX_KEYS = 60;
/** Items of a documented list read. */
const ITEMS = 5;

const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;

/** Counts one documented body (or a value within it) into the node. */
export function addShape(node: ShapeNode, value: unknown, depth = 0): void {
  node.n++;
  const type = typeOf(value);
  node.types[type] = (node.types[type] ?? 0) + 1;
  if (depth >= MAX_DEPTH) return;
  if (Array.isArray(value))
    for (const item of value.slice(0, ITEMS)) addShape((node.items ??= { n: 0, types: {} }), item, depth + 1);
  else if (type === 'object')
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      // No prototype: a documented `constructor` or `__proto__` is a key like any other.
      node.keys ??= Object.create(null) as Record<string, ShapeNode>;
      addShape((node.keys[key] ??= { n: 0, types: {} }), child, depth + 1);
    }
}

/** The node with only what most of its values show: keys on at least half the objects, at most MAX_KEYS of them. */
export function prunedShape(node: ShapeNode): ShapeNode {
  const out: ShapeNode = { n: node.n, types: node.types };
  const objects = node.types.object ?? 0;
  if (node.keys) {
    const kept = Object.entries(node.keys)
      .filter(([, child]) => child.n * 2 >= objects)
      .sort((a, b) => b[1].n - a[1].n)
      .slice(0, MAX_KEYS);
    if (kept.length > 0) out.keys = Object.fromEntries(kept.map(([key, child]) => [key, prunedShape(child)]));
  }
  if (node.items) out.items = prunedShape(node.items);
  return out;
}

const usualType = (node: ShapeNode): string =>
  Object.entries(node.types).reduce((a, b) => (b[1] > a[1] || (b[1] === a[1] && b[0] < a[0]) ? b : a))[0];

/**
 * The shape as a response schema: each place of the type most of its values have, an object's keys all there (they
 * are the ones most bodies show), a scalar's type only (its value is the prior's to give).
 */
export function shapeAsSchema(node: ShapeNode): JsonSchema {
  const type = usualType(node);
  if (type === 'object') {
    const keys = Object.keys(node.keys ?? {});
    return {
      type: 'object',
      properties: Object.fromEntries(keys.map((key) => [key, shapeAsSchema(node.keys![key]!)])),
      required: keys,
    };
  }
  if (type === 'array') return { type: 'array', items: node.items ? shapeAsSchema(node.items) : {} };
  return { type };
}

/** Where the shape of the bodies of one noun of an API's paths (`sms` of `/sms/send`) is kept. */
export const shapeKey = (api: string, noun: string) => `${api}\u0000${noun}`;

const schemas = new WeakMap<Record<string, ShapeNode>, Map<string, JsonSchema>>();

/**
 * The response schema of the documented shape of a noun's operations in an API, else of the API's (two bodies or
 * more), if the prior has one: made once per prior and place.
 */
export function documentedShape(
  shapes: Record<string, ShapeNode> | undefined,
  api: string,
  noun: string,
): JsonSchema | undefined {
  if (!shapes) return undefined;
  const key = noun && shapes[shapeKey(api, noun)] ? shapeKey(api, noun) : api;
  const node = shapes[key];
  if (!node) return undefined;
  let made = schemas.get(shapes);
  if (!made) schemas.set(shapes, (made = new Map()));
  let schema = made.get(key);
  if (!schema) made.set(key, (schema = shapeAsSchema(node)));
  return schema;
}
