import type { JsonSchema } from '../../library/tool.js';
import { canonicalJson } from '../canonical.js';
import { satisfies } from './check.js';
import type { Echo } from './echo.js';
import { faker, rng } from './faker.js';
import { fits, jsonType, typeAllowed } from './fits.js';
import { resolve, type Flat, type JsonType } from './flat.js';
import { hasFormat } from './formats.js';
import { booleanFor, guessType, numberFor, stringFor } from './leaves.js';
import { nameKey, singular } from './names.js';
import { fromPattern, matches } from './regex.js';
import { bestEffort, echoFor, NOTHING, type Site, type Walk } from './site.js';
import { newPersona, type Persona } from './values.js';

const ATTEMPTS = 12;
/** Past this many values in one body, a value that fails its checks is not tried again (retries nest). */
const RETRY_BUDGET = 20_000;
const RETRY_SPEND = 400;
const MAX_DEPTH = 10;
const NODE_BUDGET = 2000;
const WRAPPERS = new Set(['data', 'result', 'results', 'items', 'item', 'records', 'record', 'entries', 'entry', 'list', 'content', 'response', 'payload', 'value', 'values', 'objects', 'object', 'hits', 'resources', 'resource', 'rows', 'docs', 'documents', 'matches', 'nodes', 'node', 'edges', 'elements', 'collection', 'body']);
const FREE_FORM_KEYS = ['id', 'name', 'type', 'value', 'status', 'description', 'created_at', 'count', 'enabled', 'url'];

/**
 * A value satisfying every schema of `schemas` (read as an allOf), or NOTHING when none was found — unless
 * `walk.lenient`, when the last try is returned anyway (a required field is better wrong than missing).
 */
export function generate(schemas: readonly JsonSchema[], site: Site, walk: Walk): unknown {
  walk.nodes++;
  const loose = walk.loose;
  const start = walk.nodes;
  const faults = walk.faults;
  let fallback: unknown = NOTHING;
  let fallbackFaults = Infinity;
  let attempts = ATTEMPTS;
  const tried = new Map<readonly JsonSchema[], Set<number>>();
  try {
    // Retrying a large value is costly: past a few hundred values spent on it, the last try stands.
    for (let attempt = 0; attempt < attempts && walk.nodes - start < RETRY_SPEND && walk.nodes < RETRY_BUDGET; attempt++) {
      walk.loose = loose || attempt >= 2;
      walk.faults = faults;
      const flat = resolve(schemas, rng, tried);
      if (flat.impossible && !flat.chose) break;
      // Without choices or checks, only a leaf's bad luck can fail (a pattern randexp missed): a few tries do.
      if (!flat.chose && flat.mustMatch.length === 0 && flat.mustNotMatch.length === 0) attempts = Math.min(attempts, 3);
      const value = flat.impossible ? NOTHING : fromFlat(flat, site, walk);
      if (value === NOTHING) continue;
      const clean = walk.faults === faults;
      if (clean && (passes(flat, value) || (spoil(flat, value) && passes(flat, value)))) return value;
      const cost = walk.faults - faults + (clean ? 1 : 0);
      if (cost < fallbackFaults) [fallback, fallbackFaults] = [value, cost];
    }
    walk.faults = faults;
    if (fallback === NOTHING) return bestEffort(walk, NOTHING);
    if (!walk.lenient) return NOTHING;
    walk.faults += fallbackFaults;
    return fallback;
  } finally {
    walk.loose = loose;
  }
}

/** `generate`, then, if nothing valid came, a best-effort value: for required fields, list minimums and the root. */
export function generateRequired(schemas: readonly JsonSchema[], site: Site, walk: Walk): unknown {
  const value = generate(schemas, site, walk);
  if (value !== NOTHING || walk.lenient) return value;
  walk.lenient = true;
  try {
    return generate(schemas, site, walk);
  } finally {
    walk.lenient = false;
  }
}

const SPOILERS: unknown[] = [null, '', 0, false, [], {}];

/**
 * OpenAPI's oneOf branches are often objects that declare different fields but require none of them, so one
 * value matches several. For each branch not taken that the object still matches, this sets a field that
 * branch declares (and the taken one leaves open) to a value of a type that branch refuses. Says whether it changed anything.
 */
function spoil(flat: Flat, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || flat.mustNotMatch.length === 0) return false;
  const record = value as Record<string, unknown>;
  const declared = new Set<string>();
  for (const part of flat.objects) if (part.properties) for (const key in part.properties) declared.add(key);
  let changed = false;
  for (const other of flat.mustNotMatch) {
    if (surelyMisses(other, record) || satisfies(other, record) !== true) continue;
    const fields = declaredFields(other);
    for (const key of rng.shuffle(Object.keys(fields))) {
      if (Object.hasOwn(record, key) || declared.has(key) || !keyAllowed(flat, key, declared)) continue;
      const open = propertySchemas(flat, key) ?? [];
      const spoiler = SPOILERS.find((candidate) => surelyMisses(fields[key]!, candidate) && open.every((schema) => satisfies(schema, candidate) !== false));
      if (spoiler === undefined) continue;
      record[key] = structuredClone(spoiler);
      changed = true;
      break;
    }
  }
  return changed;
}

/** The properties a schema declares itself or through its allOf members. */
function declaredFields(schema: JsonSchema): Record<string, JsonSchema> {
  if (typeof schema !== 'object') return {};
  const out: Record<string, JsonSchema> = { ...((schema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  if (Array.isArray(schema.allOf)) for (const member of schema.allOf) Object.assign(out, declaredFields(member as JsonSchema));
  return out;
}

function passes(flat: Flat, value: unknown): boolean {
  for (const schema of flat.mustMatch) if (satisfies(schema, value) === false) return false;
  for (const schema of flat.mustNotMatch) if (!surelyMisses(schema, value) && satisfies(schema, value) === true) return false;
  return true;
}

/**
 * A look at a schema's own type, enum, const and required that proves a value does not match it, sparing a compile:
 * most oneOf branches not taken differ from the value in exactly these.
 */
function surelyMisses(schema: JsonSchema, value: unknown, depth = 0): boolean {
  if (typeof schema !== 'object') return !schema;
  const { type, required, properties, additionalProperties } = schema as { type?: unknown; required?: unknown; properties?: unknown; additionalProperties?: unknown };
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    const actual = jsonType(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return true;
  }
  if ('const' in schema && canonicalJson(schema.const) !== canonicalJson(value)) return true;
  if (Array.isArray(schema.enum) && !schema.enum.some((member) => canonicalJson(member) === canonicalJson(value))) return true;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (Array.isArray(required)) for (const key of required) if (typeof key === 'string' && !Object.hasOwn(value, key)) return true;
    const declared = properties !== null && typeof properties === 'object' ? (properties as Record<string, JsonSchema>) : undefined;
    if (additionalProperties === false && !('patternProperties' in schema)) {
      for (const key in value) if (!declared || !Object.hasOwn(declared, key)) return true;
    }
    // A discriminator (`kind: {const: "dog"}`) usually sits a level or two down.
    if (declared && depth < 3) {
      for (const key in declared) {
        if (Object.hasOwn(value, key) && surelyMisses(declared[key]!, (value as Record<string, unknown>)[key], depth + 1)) return true;
      }
    }
  }
  return false;
}

function fromFlat(flat: Flat, site: Site, walk: Walk): unknown {
  if (flat.enum) {
    const value = fromEnum(flat, site, walk);
    // An enum none of whose values fits the rest (an array typed field with a string enum) is unsatisfiable: when
    // the value must be there anyway, the enum gives way.
    if (value !== NOTHING) return value;
    if (bestEffort(walk, true) === NOTHING) return NOTHING;
  }
  const type = chooseType(flat, site, walk);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return booleanFor(flat, site, walk);
    case 'integer':
    case 'number':
      return numberFor(flat, type === 'integer', site, walk);
    case 'string':
      return stringFor(flat, site, walk);
    case 'array':
      return arrayFor(flat, site, walk);
    case 'object':
      return objectFor(flat, site, walk);
    default:
      return NOTHING;
  }
}

function fromEnum(flat: Flat, site: Site, walk: Walk): unknown {
  let candidates = flat.enum!.filter((value) => fits(value, flat));
  if (site.taken?.size) {
    const fresh = candidates.filter((value) => !site.taken!.has(canonicalJson(value)));
    if (fresh.length) candidates = fresh;
  }
  if (candidates.length === 0) return NOTHING;
  const echoed = echoFor(site, walk);
  if (echoed !== undefined && candidates.includes(echoed)) return echoed;
  const value = rng.pick(candidates);
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

function inferTypes(flat: Flat): JsonType[] | undefined {
  const types: JsonType[] = [];
  if (flat.objects.length || flat.required.size || flat.minProperties !== undefined || flat.maxProperties !== undefined || flat.propertyNames.length) types.push('object');
  if (flat.arrays.length || flat.minItems !== undefined || flat.maxItems !== undefined || flat.contains !== undefined) types.push('array');
  if (flat.patterns.length || flat.minLength !== undefined || flat.maxLength !== undefined || flat.formats.some(hasFormat)) types.push('string');
  if (flat.minimum !== undefined || flat.maximum !== undefined || flat.exclusiveMinimum !== undefined || flat.exclusiveMaximum !== undefined || flat.multipleOf.length) types.push('number');
  return types.length ? types : undefined;
}

const ALL_TYPES: JsonType[] = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];

/** Types a `not: {type: …}` rules out (the common way to say "anything but null"). */
function excludedTypes(flat: Flat): Set<string> {
  const out = new Set<string>();
  for (const schema of flat.mustNotMatch) {
    if (typeof schema !== 'object' || Object.keys(schema).some((keyword) => keyword !== 'type' && keyword !== 'description' && keyword !== 'title')) continue;
    const type = schema.type;
    for (const name of Array.isArray(type) ? type : [type]) if (typeof name === 'string') out.add(name);
  }
  if (out.has('number')) out.add('integer');
  return out;
}

function chooseType(flat: Flat, site: Site, walk: Walk): JsonType | undefined {
  const excluded = flat.mustNotMatch.length ? excludedTypes(flat) : undefined;
  let types = flat.types ? [...flat.types] : inferTypes(flat);
  if (!types) {
    const guess = guessType(site, walk);
    if (!excluded?.has(guess) && !walk.loose) return guess;
    types = ALL_TYPES;
  }
  if (excluded) types = types.filter((type) => !excluded.has(type));
  if (types.length <= 1) return types[0];
  const echoed = echoFor(site, walk);
  if (echoed !== undefined && typeAllowed(echoed, flat.types)) {
    const type = jsonType(echoed);
    return type === 'integer' && !types.includes('integer') ? 'number' : type;
  }
  const solid = types.filter((type) => type !== 'null');
  if (solid.length === 0 || (solid.length < types.length && rng.chance(0.1))) return 'null';
  return rng.pick(solid);
}

function childSite(site: Site, key: string, persona: () => Persona, walk: Walk): Site {
  const name = nameKey(key);
  return {
    key: name,
    parent: site.key || site.parent,
    depth: site.depth + 1,
    inList: site.inList,
    record: site.record && (WRAPPERS.has(name) || walk.echo.resources.has(name)),
    inRecord: site.record,
    persona,
  };
}

function arrayFor(flat: Flat, site: Site, walk: Walk): unknown {
  const min = flat.minItems ?? 0;
  let max = flat.maxItems ?? Infinity;
  for (const part of flat.arrays) if (part.items === false) max = Math.min(max, part.prefixItems.length);
  if (min > max) return NOTHING;
  let length: number;
  if (site.depth >= MAX_DEPTH || walk.nodes > NODE_BUDGET) length = min;
  else if (site.record && !site.inList && walk.echo.listSize !== undefined) length = walk.echo.listSize;
  else length = site.depth < 3 ? rng.int(1, 5) : rng.int(1, 2);
  length = Math.max(min, Math.min(max, length));
  const containing = flat.contains === undefined ? new Set<number>() : pickIndices(length, flat.minContains ?? 1, min, max);
  if (containing.size > length) length = containing.size;
  const seen = flat.uniqueItems ? new Set<string>() : undefined;
  const item: Site = {
    key: site.key ? singular(site.key) : '',
    parent: site.parent,
    depth: site.depth + 1,
    inList: true,
    record: site.record,
    inRecord: false,
    persona: site.persona,
    taken: seen,
  };
  const out: unknown[] = [];
  for (let index = 0; index < length; index++) {
    const schemas: JsonSchema[] = [];
    for (const part of flat.arrays) {
      const schema = index < part.prefixItems.length ? part.prefixItems[index] : part.items;
      if (schema !== undefined) schemas.push(schema);
    }
    if (containing.has(index)) schemas.push(flat.contains!);
    const required = index < min || containing.has(index);
    let value = generateItem(schemas, item, walk, required);
    for (let retry = 0; seen && value !== NOTHING && seen.has(canonicalJson(value)) && retry < 8; retry++) value = generateItem(schemas, item, walk, required);
    if (value === NOTHING || (seen && seen.has(canonicalJson(value)))) {
      if (out.length >= min && !containing.has(index)) break;
      if (value === NOTHING) return NOTHING;
    }
    seen?.add(canonicalJson(value));
    out.push(value);
  }
  return out;
}

function generateItem(schemas: JsonSchema[], site: Site, walk: Walk, required: boolean): unknown {
  let persona: Persona | undefined;
  const item = { ...site, persona: () => (persona ??= newPersona()) };
  return required ? generateRequired(schemas, item, walk) : generate(schemas, item, walk);
}

/** Which positions of a list hold the `contains` items: at least `count` of them, within the length bounds. */
function pickIndices(length: number, count: number, min: number, max: number): Set<number> {
  const size = Math.min(Math.max(length, count, min), max);
  const order = rng.shuffle(Array.from({ length: size }, (_, i) => i));
  return new Set(order.slice(0, Math.min(count, size)));
}

/** The schemas a property's value must satisfy: its declarations, the patterns its name matches, or each part's additionalProperties. */
function propertySchemas(flat: Flat, key: string): JsonSchema[] | undefined {
  const schemas: JsonSchema[] = [];
  for (const part of flat.objects) {
    let covered = false;
    const declared = part.properties && Object.hasOwn(part.properties, key) ? part.properties[key] : undefined;
    if (declared !== undefined) {
      schemas.push(declared);
      covered = true;
    }
    if (part.patternProperties) {
      for (const pattern in part.patternProperties) {
        if (matches(pattern, key)) {
          schemas.push(part.patternProperties[pattern]!);
          covered = true;
        }
      }
    }
    if (!covered && part.additionalProperties !== undefined) {
      if (part.additionalProperties === false) return undefined;
      schemas.push(part.additionalProperties);
    }
  }
  return schemas;
}

function keyAllowed(flat: Flat, key: string, declared: Set<string>): boolean {
  if (flat.closed && !declared.has(key) && !flat.objects.some((part) => part.patternProperties && Object.keys(part.patternProperties).some((p) => matches(p, key)))) return false;
  for (const schema of flat.propertyNames) if (satisfies(schema, key) === false) return false;
  return propertySchemas(flat, key) !== undefined;
}

function optionalChance(site: Site, walk: Walk): number {
  if (site.depth >= MAX_DEPTH || walk.nodes > NODE_BUDGET) return 0;
  return site.depth < 2 ? 0.9 : site.depth < 4 ? 0.8 : 0.6;
}

function objectFor(flat: Flat, site: Site, walk: Walk): unknown {
  const declared = new Set<string>();
  for (const part of flat.objects) if (part.properties) for (const key in part.properties) declared.add(key);
  const chance = optionalChance(site, walk);
  const maxProperties = flat.maxProperties ?? Infinity;
  const keys: string[] = [];
  const chosen = new Set<string>();
  // A key comes with the keys it depends on (dependentRequired), and only if all of them fit under maxProperties.
  const add = (key: string, force: boolean): boolean => {
    const closure = [key];
    for (let i = 0; i < closure.length; i++) {
      for (const dependency of flat.dependentRequired.get(closure[i]!) ?? []) if (!closure.includes(dependency) && !chosen.has(dependency)) closure.push(dependency);
    }
    const fresh = closure.filter((k) => !chosen.has(k));
    if (!force && keys.length + fresh.length > maxProperties) return false;
    for (const k of fresh) {
      chosen.add(k);
      keys.push(k);
    }
    return true;
  };
  for (const key of flat.required) add(key, true);
  for (const key of declared) {
    // An `id` is always there: records without one look broken, and echoes of the requested id land on it.
    const wanted = key === 'id' ? chance > 0 : rng.chance(chance);
    if (!chosen.has(key) && !flat.forbidden.has(key) && wanted && keyAllowed(flat, key, declared)) add(key, false);
  }
  // An object with declared fields never comes back empty by chance.
  if (keys.length === 0 && chance > 0) for (const key of declared) if (keys.length === 0 && !flat.forbidden.has(key) && keyAllowed(flat, key, declared)) add(key, false);

  const wanted = Math.max(flat.minProperties ?? 0, declared.size === 0 && site.depth < 4 ? freeFormSize(flat) : 0);
  if (keys.length < wanted) {
    for (const key of declared) if (keys.length < wanted && !chosen.has(key) && !flat.forbidden.has(key) && keyAllowed(flat, key, declared)) add(key, false);
    for (let tries = 0; keys.length < Math.min(wanted, maxProperties) && tries < wanted * 4 + 8; tries++) {
      const key = extraKey(flat, keys.length);
      if (key !== undefined && !chosen.has(key) && keyAllowed(flat, key, declared)) add(key, false);
    }
  }

  let persona: Persona | undefined;
  const personaOf = () => (persona ??= newPersona());
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    let schemas = propertySchemas(flat, key);
    if (schemas === undefined) {
      // A required key some part's additionalProperties: false shuts out: no valid object exists. When one must
      // be there anyway, the key comes with whatever declares it.
      if (!flat.required.has(key)) continue;
      if (bestEffort(walk, true) === NOTHING) return NOTHING;
      schemas = flat.objects.flatMap((part) => (part.properties && Object.hasOwn(part.properties, key) ? [part.properties[key]!] : []));
    }
    const child = childSite(site, key, personaOf, walk);
    const value = flat.required.has(key) ? generateRequired(schemas, child, walk) : generate(schemas, child, walk);
    if (value !== NOTHING) out[key] = value;
  }
  return out;
}

/** How many entries an object without declared properties gets: a map keyed by pattern or a free-form object. */
function freeFormSize(flat: Flat): number {
  const open = flat.objects.every((part) => part.additionalProperties !== false) || flat.objects.some((part) => part.patternProperties);
  return open ? rng.int(1, 3) : 0;
}

/** A new key for an object that needs more entries: from patternProperties, propertyNames, or plausible field names. */
function extraKey(flat: Flat, index: number): string | undefined {
  const patterns = flat.objects.flatMap((part) => (part.patternProperties ? Object.keys(part.patternProperties) : []));
  const closed = flat.closed || flat.objects.some((part) => part.additionalProperties === false);
  if (patterns.length && (closed || rng.chance(0.5))) return fromPattern(rng.pick(patterns), () => true, 6);
  if (flat.propertyNames.length) {
    const key = generate(flat.propertyNames.concat({ type: 'string' }), rootlessSite(), { echo: EMPTY_ECHO, nodes: 0, loose: false, lenient: false, faults: 0 });
    return typeof key === 'string' ? key : undefined;
  }
  return index < FREE_FORM_KEYS.length && rng.chance(0.7) ? rng.pick(FREE_FORM_KEYS) : faker.word.noun();
}

const EMPTY_ECHO: Echo = { byKey: new Map(), resourceId: undefined, resources: new Set(), listSize: undefined };

function rootlessSite(): Site {
  return { key: '', parent: '', depth: 0, inList: false, record: false, inRecord: false, persona: newPersona };
}

