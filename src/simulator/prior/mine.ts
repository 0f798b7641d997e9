import { refToken, resolvePointer } from '../../library/openapi/refs.js';
import { pointerBelow } from '../../library/openapi/schema.js';
import type { LibraryStore } from '../../library/store.js';
import { idPrefix, valueClass } from '../../library/value-class.js';
import { nameKey, pathNoun, singular } from '../synth/names.js';
import { contextKeys, PRIOR_VERSION, type PriorEntry, type ValuePrior } from './prior.js';
import { addShape, MIN_BODIES, prunedShape, type ShapeNode, shapeKey } from './shapes.js';

/** Distinct sample strings kept per class and context, and the longest kept: enough to draw from, small on disk. */
const SAMPLES = 5;
/** Vendor ids keep one sample more for each new prefix, up to this many: one API's `id` holds every resource's. */
const PREFIXED_SAMPLES = 40;
const SAMPLE_CHARS = 80;
/** Paths and URLs run longer: an Azure resource's id is its path, of 150 characters or so. */
const LONG_SAMPLE_CHARS = 240;
const LONG_CLASSES = new Set(['path', 'url']);
/** Items of a documented list read: a list of 500 records says little more than its first few. */
const ITEMS = 10;
const MAX_DEPTH = 16;
/** Contexts seen once outside their API are left out of the file: most are one-off names, and they are most of it. */
const MIN_SHARED = 2;
/** What documents write where they mean "a value goes here": not a vendor's value. */
const PLACEHOLDER = /^(?:string|\{\{.*\}\}|<[^>]*>)$/i;

export interface MineSummary {
  apis: number;
  left_out: number;
  left_out_operations: number;
  values: number;
  contexts: number;
}

/**
 * The value prior of a library: every example its API documents hold (responses', request bodies', parameters' and
 * schemas' `example` and `examples`, wherever they sit), but those of the `leaveOut` APIs and of the `leaveOutOperations`
 * (tool ids: the operation and all its responses refer to, so that an answer measured against the operation's example
 * draws on nothing of it), each scalar counted under its contexts (prior.ts). Deterministic: the APIs in id order,
 * each document in its own order.
 */
export function minePrior(
  store: LibraryStore,
  leaveOut: ReadonlySet<string>,
  leaveOutOperations: ReadonlySet<string> = new Set(),
): { prior: ValuePrior; summary: MineSummary } {
  const fields = new Map<string, PriorEntry>();
  const shapes: Record<string, ShapeNode> = {};
  let values = 0;
  let apis = 0;
  for (const api of store.apis()) {
    if (api.format !== 'openapi' || leaveOut.has(api.api_id)) continue;
    const document = store.apiDocument(api.api_id);
    if (document === undefined) continue;
    apis++;
    const count = (value: unknown, key: string, parent: string) => {
      if (key === '' || (typeof value === 'string' && PLACEHOLDER.test(value.trim()))) return;
      const cls = valueClass(value, key);
      if (cls === undefined) return;
      values++;
      for (const context of contextKeys({ api: api.api_id, category: api.category, parent, key })) {
        let entry = fields.get(context);
        if (!entry) fields.set(context, (entry = { n: 0, classes: {}, samples: {} }));
        addValue(entry, cls, value);
      }
    };
    const held =
      leaveOutOperations.size > 0 ? store.apiOperations(api.api_id).filter((op) => leaveOutOperations.has(op.id)) : [];
    const unread = held.length > 0 ? unreadPlaces(document, held) : undefined;
    // The API's bodies, one per operation, and those of each noun of its paths (one resource's operations answer
    // alike).
    const shape: ShapeNode = { n: 0, types: {} };
    const byNoun = new Map<string, ShapeNode>();
    const shaped = new Set<string>();
    findExamples(
      document,
      [],
      (value, key, parent, path) => {
        if (key === '' && successBody(path) && !shaped.has(`${path[1]}\u0000${path[2]}`)) {
          shaped.add(`${path[1]}\u0000${path[2]}`);
          addShape(shape, value);
          let noun = byNoun.get(parent);
          if (!noun) byNoun.set(parent, (noun = { n: 0, types: {} }));
          addShape(noun, value);
        }
        walkValue(value, key, parent, 0, count);
      },
      unread,
    );
    if (shape.n >= MIN_BODIES) shapes[api.api_id] = prunedShape(shape);
    for (const [noun, node] of byNoun) if (noun) shapes[shapeKey(api.api_id, noun)] = prunedShape(node);
  }
  const kept: Record<string, PriorEntry> = {};
  for (const [context, entry] of fields)
    if (context.startsWith('a\u0000') || entry.n >= MIN_SHARED) kept[context] = entry;
  const operations = [...leaveOutOperations].sort();
  const prior: ValuePrior = {
    version: PRIOR_VERSION,
    left_out: [...leaveOut].sort(),
    ...(operations.length > 0 ? { left_out_operations: operations } : {}),
    apis,
    values,
    fields: kept,
    shapes,
  };
  const summary = {
    apis,
    left_out: leaveOut.size,
    left_out_operations: operations.length,
    values,
    contexts: Object.keys(kept).length,
  };
  return { prior, summary };
}

function addValue(entry: PriorEntry, cls: string, value: unknown): void {
  entry.n++;
  entry.classes[cls] = (entry.classes[cls] ?? 0) + 1;
  if (typeof value === 'number') {
    entry.lo = Math.min(entry.lo ?? value, value);
    entry.hi = Math.max(entry.hi ?? value, value);
    if (Number.isInteger(value)) entry.ints = (entry.ints ?? 0) + 1;
    else entry.floats = (entry.floats ?? 0) + 1;
  }
  // Numbers keep samples too (as text): a draw near one of them keeps the magnitude the range alone loses.
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string' && text.length <= (LONG_CLASSES.has(cls) ? LONG_SAMPLE_CHARS : SAMPLE_CHARS)) {
    const samples = (entry.samples[cls] ??= []);
    if (samples.includes(text)) return;
    if (samples.length < SAMPLES) samples.push(text);
    else if (cls === 'vendor_id' && samples.length < PREFIXED_SAMPLES) {
      const prefix = idPrefix(text);
      if (!samples.some((sample) => idPrefix(sample) === prefix)) samples.push(text);
    }
  }
}

type Emit = (value: unknown, key: string, parent: string, path: string[]) => void;

/**
 * Where an operation's 2xx response documents a whole JSON body: its media type's example
 * (`paths › path › method › responses › 2xx › content › application/json`), or its schema's (`… › schema`); not a
 * header's, an item's or a member's.
 */
function successBody(path: string[]): boolean {
  if (path[0] !== 'paths' || path[3] !== 'responses' || !/^2/.test(path[4] ?? '') || path[5] !== 'content')
    return false;
  return /json/i.test(path[6] ?? '') && (path.length === 7 || (path.length === 8 && path[7] === 'schema'));
}

/** A documented value walked to its scalars, each named as the synthesizer names its place (objects.ts, arrays.ts). */
function walkValue(
  value: unknown,
  key: string,
  parent: string,
  depth: number,
  count: (value: unknown, key: string, parent: string) => void,
): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, ITEMS)) walkValue(item, key ? singular(key) : '', parent, depth + 1, count);
  } else if (value !== null && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) walkValue(child, nameKey(name), key || parent, depth + 1, count);
  } else count(value, key, parent);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const pointerOf = (path: string[]) => path.reduce(pointerBelow, '');

/**
 * The places of a document a prior leaves unread for these operations, as JSON pointers: each operation, and every
 * node its responses refer to, transitively (a shared component too: its examples are the operation's as well).
 */
export function unreadPlaces(document: unknown, operations: { method: string; path: string }[]): Set<string> {
  const out = new Set<string>();
  const pending: unknown[] = [];
  const follow = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) follow(item);
    else if (isObject(node))
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
          const target = pointerOf(value.slice(2).split('/').map(refToken));
          if (!out.has(target)) {
            out.add(target);
            pending.push(resolvePointer(document, value));
          }
        } else follow(value);
      }
  };
  for (const { method, path } of operations) {
    // A path item may be a `$ref` (to `components/pathItems`, to another path): its operations live there.
    let at = ['paths', path];
    let item = resolvePointer(document, `#${pointerOf(at)}`);
    for (
      let hops = 0;
      hops < 8 && isObject(item) && typeof item.$ref === 'string' && item.$ref.startsWith('#/');
      hops++
    ) {
      at = item.$ref.slice(2).split('/').map(refToken);
      item = resolvePointer(document, item.$ref);
    }
    out.add(pointerOf([...at, method]));
    follow(resolvePointer(document, `#${pointerOf([...at, method, 'responses'])}`));
  }
  while (pending.length > 0) follow(pending.pop());
  return out;
}

/**
 * Every `example` and `examples` of a document, with the name of the field it documents: a parameter's name, a
 * schema property's (a list's items: its singular), a component schema's, or none for a whole body (the keys of
 * the value name its fields). `path` is the way down, as keys; places in `unread` are skipped, with all below them.
 */
function findExamples(node: unknown, path: string[], emit: Emit, unread?: ReadonlySet<string>, at = ''): void {
  if (unread?.has(at)) return;
  // The place as a pointer (`at`), one token longer each step, is only kept where places are left unread.
  const below = (token: string) => (unread ? pointerBelow(at, token) : '');
  if (Array.isArray(node)) {
    node.forEach((item, i) => findExamples(item, [...path, String(i)], emit, unread, below(String(i))));
    return;
  }
  if (!isObject(node)) return;
  // A map of properties (or of component schemas) names schemas: its keys are names, never keywords.
  const named = path.at(-1) === 'properties' || path.at(-1) === 'schemas';
  if (!named) {
    const [key, parent] = fieldOf(node, path);
    if (node.example !== undefined) emit(node.example, key, parent, path);
    if (Array.isArray(node.examples)) for (const value of node.examples) emit(value, key, parent, path);
    else if (isObject(node.examples))
      for (const example of Object.values(node.examples))
        if (isObject(example) && example.value !== undefined) emit(example.value, key, parent, path);
  }
  for (const [name, child] of Object.entries(node))
    if (named || (name !== 'example' && name !== 'examples'))
      findExamples(child, [...path, name], emit, unread, below(name));
}

/**
 * The field a node documents and its holder, as name keys. A body (a media type, a response) names no field; an
 * operation's is held by the noun of its path, as the synthesizer names the holder of a body's fields.
 */
function fieldOf(node: Record<string, unknown>, path: string[]): [string, string] {
  if (typeof node.name === 'string' && typeof node.in === 'string') return [nameKey(node.name), ''];
  const names: string[] = [];
  for (let i = 1; i < path.length; i++) {
    const holder = path[i - 1];
    if (holder === 'properties' || holder === 'schemas') names.push(nameKey(path[i]!));
    else if (path[i] === 'items' && names.length > 0) names[names.length - 1] = singular(names.at(-1)!);
    else if (path[i] === 'content' || path[i] === 'responses' || path[i] === 'requestBody') names.length = 0;
  }
  if (names.length === 0 && path[0] === 'paths' && path.length > 2) return ['', pathNoun(path[1]!) ?? ''];
  return [names.at(-1) ?? '', names.at(-2) ?? ''];
}
