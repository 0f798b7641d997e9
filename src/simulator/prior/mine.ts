import type { LibraryStore } from '../../library/store.js';
import { valueClass } from '../../library/value-class.js';
import { nameKey, singular } from '../synth/names.js';
import { contextKeys, PRIOR_VERSION, type PriorEntry, type ValuePrior } from './prior.js';

/** Distinct sample strings kept per class and context, and the longest kept: enough to draw from, small on disk. */
const SAMPLES = 5;
const SAMPLE_CHARS = 80;
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
  values: number;
  contexts: number;
}

/**
 * The value prior of a library: every example its API documents hold (responses', request bodies', parameters' and
 * schemas' `example` and `examples`, wherever they sit), but those of the `leaveOut` APIs, each scalar counted under
 * its contexts (prior.ts). Deterministic: the APIs in id order, each document in its own order.
 */
export function minePrior(
  store: LibraryStore,
  leaveOut: ReadonlySet<string>,
): { prior: ValuePrior; summary: MineSummary } {
  const fields = new Map<string, PriorEntry>();
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
    findExamples(document, [], (value, key, parent) => walkValue(value, key, parent, 0, count));
  }
  const kept: Record<string, PriorEntry> = {};
  for (const [context, entry] of fields)
    if (context.startsWith('a\u0000') || entry.n >= MIN_SHARED) kept[context] = entry;
  const prior: ValuePrior = { version: PRIOR_VERSION, left_out: [...leaveOut].sort(), apis, values, fields: kept };
  return { prior, summary: { apis, left_out: leaveOut.size, values, contexts: Object.keys(kept).length } };
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
  if (typeof text === 'string' && text.length <= SAMPLE_CHARS) {
    const samples = (entry.samples[cls] ??= []);
    if (samples.length < SAMPLES && !samples.includes(text)) samples.push(text);
  }
}

type Emit = (value: unknown, key: string, parent: string) => void;

/** A documented value walked to its scalars, each named as the synthesizer names its place (objects.ts, arrays.ts). */
function walkValue(value: unknown, key: string, parent: string, depth: number, count: Emit): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, ITEMS)) walkValue(item, key ? singular(key) : '', parent, depth + 1, count);
  } else if (value !== null && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) walkValue(child, nameKey(name), key || parent, depth + 1, count);
  } else count(value, key, parent);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every `example` and `examples` of a document, with the name of the field it documents: a parameter's name, a
 * schema property's (a list's items: its singular), a component schema's, or none for a whole body (the keys of
 * the value name its fields). `path` is the way down, as keys.
 */
function findExamples(node: unknown, path: string[], emit: Emit): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => findExamples(item, [...path, String(i)], emit));
    return;
  }
  if (!isObject(node)) return;
  // A map of properties (or of component schemas) names schemas: its keys are names, never keywords.
  const named = path.at(-1) === 'properties' || path.at(-1) === 'schemas';
  if (!named) {
    const [key, parent] = fieldOf(node, path);
    if (node.example !== undefined) emit(node.example, key, parent);
    if (Array.isArray(node.examples)) for (const value of node.examples) emit(value, key, parent);
    else if (isObject(node.examples))
      for (const example of Object.values(node.examples))
        if (isObject(example) && example.value !== undefined) emit(example.value, key, parent);
  }
  for (const [name, child] of Object.entries(node))
    if (named || (name !== 'example' && name !== 'examples')) findExamples(child, [...path, name], emit);
}

/** The field a node documents and its holder, as name keys; a body (a media type, a response) has none. */
function fieldOf(node: Record<string, unknown>, path: string[]): [string, string] {
  if (typeof node.name === 'string' && typeof node.in === 'string') return [nameKey(node.name), ''];
  const names: string[] = [];
  for (let i = 1; i < path.length; i++) {
    const holder = path[i - 1];
    if (holder === 'properties' || holder === 'schemas') names.push(nameKey(path[i]!));
    else if (path[i] === 'items' && names.length > 0) names[names.length - 1] = singular(names.at(-1)!);
    else if (path[i] === 'content' || path[i] === 'responses' || path[i] === 'requestBody') names.length = 0;
  }
  return [names.at(-1) ?? '', names.at(-2) ?? ''];
}
