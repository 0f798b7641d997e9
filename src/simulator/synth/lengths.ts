import type { JsonSchema } from '../../library/tool.js';
import type { Flat } from './flat.js';
import { nameKey } from './names.js';
import type { Site, Walk } from './site.js';

/** Request fields holding the things a call works on, one answer each (an embedding per input). */
const INPUT_KEYS = new Set(['input', 'inputs', 'texts', 'text', 'sentences']);
/** Request fields asking for a vector's length (OpenAI's `dimensions`, Gemini's `output_dimensionality`). */
const DIMENSION_KEYS = new Set(['dimensions', 'dimension', 'output_dimensionality', 'embedding_dimensions']);
/** At most this many items follow the request's inputs: a bulk request's answer stays a reasonable size. */
const MAX_INPUTS = 100;
/** At most this long a vector the request sizes. */
const MAX_DIMENSIONS = 4096;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How many inputs the request sends: a list's length, or 1 for one text. */
function inputCount(tree: Record<string, unknown> | undefined): number | undefined {
  for (const name in tree) {
    if (!INPUT_KEYS.has(nameKey(name))) continue;
    const value = tree[name];
    if (typeof value === 'string') return 1;
    if (Array.isArray(value) && value.length > 0) return Math.min(value.length, MAX_INPUTS);
  }
  return undefined;
}

function dimensions(tree: Record<string, unknown> | undefined): number | undefined {
  for (const name in tree) {
    const value = tree[name];
    if (DIMENSION_KEYS.has(nameKey(name)) && Number.isInteger(value) && (value as number) > 0)
      return Math.min(value as number, MAX_DIMENSIONS);
  }
  return undefined;
}

const asks = new WeakMap<object, { inputs: number | undefined; asked: number | undefined }>();
const NOTHING_ASKED = { inputs: undefined, asked: undefined };

/** What the request says of its answer's lists, read once per request. */
function askedOf(tree: Record<string, unknown> | undefined) {
  if (!tree) return NOTHING_ASKED;
  let found = asks.get(tree);
  if (!found) asks.set(tree, (found = { inputs: inputCount(tree), asked: dimensions(tree) }));
  return found;
}

const itemSchemas = (flat: Flat) => flat.arrays.flatMap((part) => (part.items === undefined ? [] : [part.items]));

/** Whether a schema declares a property `key` (its own or an allOf/anyOf/oneOf member's). */
function declares(schema: JsonSchema, key: string): boolean {
  if (typeof schema !== 'object') return false;
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, key)) return true;
  return [schema.allOf, schema.anyOf, schema.oneOf].some(
    (parts) => Array.isArray(parts) && parts.some((part) => declares(part as JsonSchema, key)),
  );
}

function numeric(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.length > 0 && types.every((type) => type === 'number' || type === 'integer');
}

/** Lengths of the number lists drawn so far in a body, by the field holding them. */
const vectors = new WeakMap<Walk, Map<string, number>>();

/**
 * The length a list takes from its request, or undefined where the request says nothing of it:
 * - a list near the top whose items carry an `index` has one item per input (an embedding per text);
 * - a list of numbers has the length the request's `dimensions` asks for, and else, in the items of a list, the length
 *   its namesakes there already have, so that the vectors of one answer share one length.
 */
export function requestedLength(flat: Flat, site: Site, walk: Walk): number | undefined {
  const { inputs, asked } = askedOf(walk.echo.tree);
  // Most lists are none of these: they are told apart before their item schemas are read.
  if (asked === undefined && !shared(flat, site) && (inputs === undefined || site.depth > 1)) return undefined;
  const items = itemSchemas(flat);
  if (items.length === 0) return undefined;
  if (inputs !== undefined && site.depth <= 1 && items.some((schema) => declares(schema, 'index'))) return inputs;
  if (!items.every(numeric)) return undefined;
  if (asked !== undefined) return asked;
  return shared(flat, site) ? vectors.get(walk)?.get(`${site.parent}.${site.key}`) : undefined;
}

/**
 * Whether a list of numbers shares its length with its namesakes: in the items of a list, unless a `contains` counts
 * its items (a length that failed it once would fail every retry).
 */
function shared(flat: Flat, site: Site): boolean {
  return site.inList && flat.contains === undefined;
}

/** Records a list of numbers' length, for its namesakes to share. */
export function drawnLength(flat: Flat, site: Site, walk: Walk, length: number): void {
  if (!shared(flat, site)) return;
  const items = itemSchemas(flat);
  if (items.length === 0 || !items.every(numeric)) return;
  let drawn = vectors.get(walk);
  if (!drawn) vectors.set(walk, (drawn = new Map()));
  const key = `${site.parent}.${site.key}`;
  if (!drawn.has(key)) drawn.set(key, length);
}
