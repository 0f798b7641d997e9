import { linkFor } from './described.js';
import { ID_KEYS } from './names.js';
import type { JsonSchema } from '../../library/tool.js';
import { canonicalJson } from '../canonical.js';
import { arrayFor } from './arrays.js';
import { passes, spoil } from './exclusion.js';
import { rng } from './faker.js';
import { fits, jsonType, typeAllowed } from './fits.js';
import { resolve, type Flat, type JsonType } from './flat.js';
import { hasFormat } from './formats.js';
import { booleanFor, guessType, numberFor, stringFor } from './leaves.js';
import { objectFor } from './objects.js';
import { priorEntry } from './prior-values.js';
import { bestEffort, echoFor, NOTHING, type Site, type Walk } from './site.js';

const ATTEMPTS = 12;
/** Past this many values in one body, a value that fails its checks is not tried again (retries nest). */
const RETRY_BUDGET = 20_000;
/** Values one `generate` may spend on retries before its last try stands. */
const RETRY_SPEND = 400;

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
    for (
      let attempt = 0;
      attempt < attempts && walk.nodes - start < RETRY_SPEND && walk.nodes < RETRY_BUDGET;
      attempt++
    ) {
      walk.loose = loose || attempt >= 2;
      walk.faults = faults;
      const flat = resolve(schemas, rng, tried, walk.expand);
      if (flat.impossible && !flat.chose) break;
      // Without choices or checks, only a leaf's bad luck can fail (a pattern randexp missed): a few tries do.
      if (!flat.chose && flat.mustMatch.length === 0 && flat.mustNotMatch.length === 0)
        attempts = Math.min(attempts, 3);
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
  if (
    flat.objects.length ||
    flat.required.size ||
    flat.minProperties !== undefined ||
    flat.maxProperties !== undefined ||
    flat.propertyNames.length
  )
    types.push('object');
  if (flat.arrays.length || flat.minItems !== undefined || flat.maxItems !== undefined || flat.contains !== undefined)
    types.push('array');
  if (
    flat.patterns.length ||
    flat.minLength !== undefined ||
    flat.maxLength !== undefined ||
    flat.formats.some(hasFormat)
  )
    types.push('string');
  if (
    flat.minimum !== undefined ||
    flat.maximum !== undefined ||
    flat.exclusiveMinimum !== undefined ||
    flat.exclusiveMaximum !== undefined ||
    flat.multipleOf.length
  )
    types.push('number');
  return types.length ? types : undefined;
}

const ALL_TYPES: JsonType[] = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];

/** Types a `not: {type: …}` rules out (the common way to say "anything but null"). */
function excludedTypes(flat: Flat): Set<string> {
  const out = new Set<string>();
  for (const schema of flat.mustNotMatch) {
    if (
      typeof schema !== 'object' ||
      Object.keys(schema).some((keyword) => keyword !== 'type' && keyword !== 'description' && keyword !== 'title')
    )
      continue;
    const type = schema.type;
    for (const name of Array.isArray(type) ? type : [type]) if (typeof name === 'string') out.add(name);
  }
  if (out.has('number')) out.add('integer');
  return out;
}

const isContainer = (type: JsonType) => type === 'object' || type === 'array';

/** How often a nullable field is null when nothing else decides: the vendors' share where the prior has one. */
const NULL_CHANCE = 0.08;

/**
 * The prior counts scalars only: for an object or a list its null share is of the nulls alone (an object documented
 * ten times and null once reads 100%), so those keep the usual chance.
 */
function nullChance(site: Site, walk: Walk, solid: readonly JsonType[]): number {
  if (solid.every(isContainer)) return NULL_CHANCE;
  const entry = walk.prior && priorEntry(walk.prior, site.parent, site.key);
  return entry ? (entry.classes.null ?? 0) / entry.n : NULL_CHANCE;
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
  // Nullable fields are null now and then (as often as the vendors' examples show them null), ids and bodies that
  // may be a record never: a record without its id looks broken, a 200 answering null lost its record. A link to a
  // page there is not (before the first) is null.
  if (
    solid.length === 0 ||
    (solid.length < types.length &&
      (site.depth > 0 || !solid.some(isContainer)) &&
      !ID_KEYS.has(site.key) &&
      (rng.chance(nullChance(site, walk, solid)) || linkFor(site, walk) === null))
  )
    return 'null';
  return rng.pick(solid);
}
