/**
 * How far an answer can reach on a held-out API (issue #49): what a simulator that reads only what the held-out rule
 * leaves it — the operation's response schema with its cuts expanded, the request, the API's document without its
 * examples, the value prior of the other APIs — could know of the withheld example. Read beside the answer's own
 * figures: a key the document never declares, or an id prefix nothing outside the withheld examples holds, is beyond
 * any answer, and a field whose class the vendors fill one way here and another there caps class agreement.
 */
import { CUT_KEYWORD } from '../library/openapi/schema.js';
import type { JsonSchema } from '../library/tool.js';
import { idPrefix } from '../library/value-class.js';
import { contextKeys, type ValuePrior } from '../simulator/prior/prior.js';
import { nameKey, singular } from '../simulator/synth/names.js';
import { MAX_ITEMS } from './compare-example.js';
import { isRecord } from './fields.js';

/** The schema of the place a pointer names in a cut placeholder, from the API's document; undefined when none. */
export type Expand = (pointer: string) => JsonSchema | undefined;

/** Branches and cuts followed when looking for a place's declared members: deeper nesting is not how APIs write. */
const MAX_NESTING = 8;

/** The sub-schemas that together say what a value at this place is: its branches, each cut expanded. */
function parts(schema: unknown, expand: Expand, depth = 0): Record<string, unknown>[] {
  if (!isRecord(schema) || depth > MAX_NESTING) return [];
  const cut = schema[CUT_KEYWORD];
  if (typeof cut === 'string') return parts(expand(cut), expand, depth + 1);
  const out = [schema];
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const branch of branches) out.push(...parts(branch, expand, depth + 1));
  }
  return out;
}

/** The members a place's schema names (in any branch). */
function declaredNames(schema: unknown, expand: Expand): Set<string> {
  const names = new Set<string>();
  for (const part of parts(schema, expand))
    if (isRecord(part.properties)) for (const name of Object.keys(part.properties)) names.add(name);
  return names;
}

/** The schema of a member (declared, else the map's value schema); undefined when the schema says nothing of it. */
function memberSchema(schema: unknown, name: string, expand: Expand): unknown {
  const all = parts(schema, expand);
  for (const part of all)
    if (isRecord(part.properties) && Object.hasOwn(part.properties, name)) return part.properties[name];
  for (const part of all) if (isRecord(part.additionalProperties)) return part.additionalProperties;
  return undefined;
}

function itemSchema(schema: unknown, expand: Expand): unknown {
  for (const part of parts(schema, expand)) if (isRecord(part.items)) return part.items;
  return undefined;
}

/**
 * For every key of the example, in the order compareToExample lists them, whether the response schema declares it at
 * its place: the keys an answer that keeps to the document can have.
 */
export function declaredKeys(example: unknown, schema: JsonSchema | undefined, expand: Expand): boolean[] {
  const out: boolean[] = [];
  const walk = (value: unknown, at: unknown) => {
    if (Array.isArray(value)) {
      const items = itemSchema(at, expand);
      for (const item of value.slice(0, MAX_ITEMS)) walk(item, items);
    } else if (isRecord(value)) {
      const names = declaredNames(at, expand);
      for (const [name, child] of Object.entries(value)) {
        out.push(names.has(name));
        walk(child, memberSchema(at, name, expand));
      }
    }
  };
  walk(example, schema);
  return out;
}

/** Keys of a document that hold examples: what the held-out rule withholds. */
const EXAMPLE_KEYS = new Set(['example', 'examples', 'x-example', 'x-examples', 'x-ms-examples']);
/** A prefix written alone, as descriptions and patterns write it (`cus_`, `^pi_[A-Za-z0-9]+$`). */
const BARE_PREFIX = /^[a-z][a-z0-9]{1,11}[_-]$/;
const TOKEN = /[A-Za-z0-9_-]+/g;

/** Vendor id prefixes a text holds: in ids (`acct_1032D82eZvKYlo2C`) or alone (`cus_`). */
export function prefixesIn(text: string, into: Set<string>): void {
  for (const [token] of text.matchAll(TOKEN)) {
    if (BARE_PREFIX.test(token)) into.add(token);
    else if (token.length > 7) {
      const prefix = idPrefix(token);
      if (prefix !== undefined) into.add(prefix);
    }
  }
}

/** The vendor id prefixes of a document outside its examples: its descriptions, patterns, enums, names. */
export function documentPrefixes(document: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown) => {
    if (typeof node === 'string') prefixesIn(node, out);
    else if (Array.isArray(node)) for (const item of node) walk(item);
    else if (isRecord(node))
      for (const [key, value] of Object.entries(node)) {
        if (EXAMPLE_KEYS.has(key)) continue;
        prefixesIn(key, out);
        walk(value);
      }
  };
  walk(document);
  return out;
}

/** Strings of a request's arguments, joined: where an id the answer may echo comes from. */
export function requestText(args: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (typeof node === 'string') parts.push(node);
    else if (Array.isArray(node)) for (const item of node) walk(item);
    else if (isRecord(node))
      for (const [key, value] of Object.entries(node)) {
        parts.push(key);
        walk(value);
      }
  };
  walk(args);
  return parts.join(' ');
}

/**
 * A JSON Pointer's place named as the synthesizer and the prior name it: the field's name key and its holder's; `root`
 * holds the body's own fields (the noun of the operation's path).
 */
export function siteOf(pointer: string, root = ''): { key: string; parent: string } {
  let key = '';
  let parent = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(token)) key = key ? singular(key) : '';
    else {
      parent = key || parent;
      key = nameKey(token);
    }
  }
  return { key, parent };
}

/** The prefixes the prior's samples show for a field, in every context it is looked up in. */
export function priorPrefixes(
  prior: ValuePrior,
  context: { api: string; category: string; parent: string; key: string },
): Set<string> {
  const out = new Set<string>();
  for (const name of contextKeys(context))
    for (const sample of prior.fields[name]?.samples.vendor_id ?? []) {
      const prefix = idPrefix(sample);
      if (prefix !== undefined) out.add(prefix);
    }
  return out;
}
