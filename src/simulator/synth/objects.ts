import type { JsonSchema } from '../../library/tool.js';
import { satisfies } from './check.js';
import { mirroredKeys, mirrorOf, searchedField, WRAPPERS, type Echo } from './echo.js';
import { faker, rng } from './faker.js';
import type { Flat } from './flat.js';
import { ID_KEYS, nameKey } from './names.js';
import { fromPattern, matches } from './regex.js';
import { generate, generateRequired } from './schema.js';
import { ownEntry, priorEntry } from './prior-values.js';
import { relate } from './relations.js';
import { bestEffort, exhausted, NOTHING, rootlessSite, type Site, type Walk } from './site.js';
import { namesPerson, newPersona, type Persona } from './values.js';

/** Field names a free-form object (`{type: object}`, often a cut recursion) is given. */
const FREE_FORM_KEYS = [
  'id',
  'name',
  'type',
  'value',
  'status',
  'description',
  'created_at',
  'count',
  'enabled',
  'url',
];

function childSite(site: Site, key: string, persona: () => Persona, walk: Walk, place: string): Site {
  const name = nameKey(key);
  const record = site.record && (WRAPPERS.has(name) || walk.echo.resources.has(name));
  // Every site has every field, in one order: V8 keeps one shape for them all.
  return {
    key: name,
    parent: site.key || site.parent,
    depth: site.depth + 1,
    inList: site.inList,
    record,
    inRecord: site.record,
    persona,
    taken: undefined,
    // A record under a wrapper (`{data: {...}}`) repeats the request as the top does.
    mirror: mirrorOf(site.mirror, name) ?? (record && !site.inList ? walk.echo.tree : undefined),
    dotted: site.inRecord && !site.record && walk.echo.dotted.size ? `${site.key}.${name}` : undefined,
    listRecord: site.record && !record && walk.echo.collections.has(name),
    search: undefined,
    want: undefined,
    shapes: site.shapes,
    shapeAt: place,
  };
}

/** Whether the API's own documented examples show this field under this holder. */
function shown(holder: string, key: string, walk: Walk): boolean {
  const entry = walk.prior && priorEntry(walk.prior, holder, key);
  return entry !== undefined && ownEntry(entry);
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a) if (!b.has(key)) return false;
  return true;
}

/**
 * The schemas a property's value must satisfy: its declarations, the patterns its name matches, or each part's
 * additionalProperties.
 */
export function propertySchemas(flat: Flat, key: string): JsonSchema[] | undefined {
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

/**
 * Whether an object may hold `key` at all: no closing keyword, propertyNames or additionalProperties: false rules it
 * out.
 */
export function keyAllowed(flat: Flat, key: string, declared: Set<string>): boolean {
  if (
    flat.closed &&
    !declared.has(key) &&
    !flat.objects.some(
      (part) => part.patternProperties && Object.keys(part.patternProperties).some((p) => matches(p, key)),
    )
  )
    return false;
  for (const schema of flat.propertyNames) if (satisfies(schema, key) === false) return false;
  return propertySchemas(flat, key) !== undefined;
}

/**
 * How likely an optional field is present: most near the top (real responses carry most of their fields), fewer deeper
 * down.
 */
function optionalChance(site: Site, walk: Walk): number {
  if (exhausted(site, walk)) return 0;
  return site.depth < 2 ? 0.9 : site.depth < 4 ? 0.8 : 0.6;
}

/**
 * Values in a body before which every declared field comes: the vendors' examples show three in four of the optional
 * fields their schemas declare (real answers serialize whole records), and a field left out at random is a key the
 * caller looks for in vain. Past it, optional fields keep the usual chances: at 300 values the dev split's key
 * coverage rose two points more, for a fifth more synthesis time.
 */
const WHOLE_NODES = 100;

/**
 * An object: its required keys (with those they depend on), most optional ones, extra keys up to minProperties (from
 * patternProperties, propertyNames or plausible field names), each valued by its own schemas. NOTHING when a required
 * key is shut out and the object need not be there.
 */
export function objectFor(flat: Flat, site: Site, walk: Walk): unknown {
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
      for (const dependency of flat.dependentRequired.get(closure[i]!) ?? [])
        if (!closure.includes(dependency) && !chosen.has(dependency)) closure.push(dependency);
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
  // What the request set comes back (a created issue has the title and body it was sent with).
  const sent = mirroredKeys(site.mirror);
  // A listed result of a search shows the search in its name or title (else its text).
  const searched = walk.echo.search !== undefined && site.inList && site.record ? searchedField(declared) : undefined;
  const whole = walk.nodes < WHOLE_NODES;
  // A later item of a list takes the keys its first item took at this place (where it is of the same schema).
  const place = site.shapes ? `${site.shapeAt}/${site.key}` : '';
  const first = site.shapes?.get(place);
  // Within the first values every declared field comes anyway: the first item's keys matter past them only.
  const like = !whole && first !== undefined && sameSet(first.declared, declared) ? first.keys : undefined;
  const holder = site.key || site.parent;
  for (const key of declared) {
    // An `id` (`sid`…) is always there: records without one look broken, and echoes of the requested id land on it.
    // Past the first values, a field the API's own examples show is there too. One draw either way, so that the
    // values after it do not depend on whether it was needed.
    const roll = rng.next();
    const name = nameKey(key);
    const always = ID_KEYS.has(name) || key === searched || sent?.has(name) || (!whole && shown(holder, name, walk));
    const wanted = like ? (always || like.has(key)) && chance > 0 : whole || always ? chance > 0 : roll < chance;
    if (!chosen.has(key) && !flat.forbidden.has(key) && wanted && keyAllowed(flat, key, declared)) add(key, false);
  }
  // An object with declared fields never comes back empty by chance.
  if (keys.length === 0 && chance > 0)
    for (const key of declared)
      if (keys.length === 0 && !flat.forbidden.has(key) && keyAllowed(flat, key, declared)) add(key, false);

  const wanted = Math.max(flat.minProperties ?? 0, declared.size === 0 && site.depth < 4 ? freeFormSize(flat) : 0);
  if (keys.length < wanted) {
    for (const key of declared)
      if (keys.length < wanted && !chosen.has(key) && !flat.forbidden.has(key) && keyAllowed(flat, key, declared))
        add(key, false);
    for (let tries = 0; keys.length < Math.min(wanted, maxProperties) && tries < wanted * 4 + 8; tries++) {
      const key = extraKey(flat, keys.length);
      if (key !== undefined && !chosen.has(key) && keyAllowed(flat, key, declared)) add(key, false);
    }
  }

  if (site.shapes && first === undefined) site.shapes.set(place, { declared, keys: new Set(keys) });

  // A nested object describes the same person as its holder (`name: {first, last}` beside `email`) unless its key
  // names another one (`owner`, `author`).
  let persona: Persona | undefined;
  const personaOf = site.key && namesPerson(site.key) ? () => (persona ??= newPersona()) : site.persona;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    let schemas = propertySchemas(flat, key);
    if (schemas === undefined) {
      // A required key some part's additionalProperties: false shuts out: no valid object exists. When one must
      // be there anyway, the key comes with whatever declares it.
      if (!flat.required.has(key)) continue;
      if (bestEffort(walk, true) === NOTHING) return NOTHING;
      schemas = flat.objects.flatMap((part) =>
        part.properties && Object.hasOwn(part.properties, key) ? [part.properties[key]!] : [],
      );
    }
    const child = childSite(site, key, personaOf, walk, place);
    if (key === searched) child.search = walk.echo.search;
    const value = flat.required.has(key) ? generateRequired(schemas, child, walk) : generate(schemas, child, walk);
    if (value !== NOTHING) out[key] = value;
  }
  relate(out, site, walk, (key, want) => {
    const schemas = propertySchemas(flat, key);
    if (!schemas) return NOTHING;
    const child = { ...childSite(site, key, personaOf, walk, place), want };
    const value = generate(schemas, child, walk);
    // A drawn anyOf branch may not hold the value asked for: it stands as it is where the field's schemas take it.
    if (value !== want && schemas.every((schema) => satisfies(schema, want) === true)) return want;
    return value;
  });
  return out;
}

/** How many entries an object without declared properties gets: a map keyed by pattern or a free-form object. */
function freeFormSize(flat: Flat): number {
  const open =
    flat.objects.every((part) => part.additionalProperties !== false) ||
    flat.objects.some((part) => part.patternProperties);
  return open ? rng.int(1, 3) : 0;
}

/** A new key for an object that needs more entries: from patternProperties, propertyNames, or plausible field names. */
function extraKey(flat: Flat, index: number): string | undefined {
  const patterns = flat.objects.flatMap((part) => (part.patternProperties ? Object.keys(part.patternProperties) : []));
  const closed = flat.closed || flat.objects.some((part) => part.additionalProperties === false);
  if (patterns.length && (closed || rng.chance(0.5))) return fromPattern(rng.pick(patterns), () => true, 6);
  if (flat.propertyNames.length) {
    const key = generate(flat.propertyNames.concat({ type: 'string' }), rootlessSite(), {
      echo: EMPTY_ECHO,
      nodes: 0,
      loose: false,
      lenient: false,
      faults: 0,
      prior: undefined,
      expand: undefined,
    });
    return typeof key === 'string' ? key : undefined;
  }
  return index < FREE_FORM_KEYS.length && rng.chance(0.7) ? rng.pick(FREE_FORM_KEYS) : faker.word.noun();
}

const EMPTY_ECHO: Echo = {
  byKey: new Map(),
  dotted: new Map(),
  tree: undefined,
  resourceId: undefined,
  resources: new Set(),
  collections: new Set(),
  listSize: undefined,
  search: undefined,
  reads: false,
  listing: false,
  typeName: undefined,
  page: undefined,
  path: undefined,
  takesCallables: false,
};
