import type { JsonSchema } from '../../library/tool.js';
import { INTEGER_FORMAT_RANGES } from '../../library/ajv.js';
import { CUT_KEYWORD } from '../../library/openapi/schema.js';
import { canonicalJson } from '../canonical.js';
import type { Rng } from './random.js';

export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';
const JSON_TYPES = new Set<string>(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

type SchemaObject = Record<string, unknown>;

/**
 * The object keywords of one schema of an allOf: `additionalProperties` speaks only of the keys its own siblings
 * declare.
 */
export interface ObjectPart {
  properties: Record<string, JsonSchema> | undefined;
  patternProperties: Record<string, JsonSchema> | undefined;
  additionalProperties: JsonSchema | undefined;
}

/** The array keywords of one schema of an allOf: `items` starts after that schema's own `prefixItems`. */
export interface ArrayPart {
  prefixItems: JsonSchema[];
  items: JsonSchema | undefined;
}

/**
 * A schema with its allOf merged and one branch of each anyOf / oneOf / if taken: plain constraints the walker
 * generates from directly, plus what it cannot build in and checks afterwards (`mustMatch`, `mustNotMatch`).
 */
export interface Flat {
  impossible: boolean;
  types: Set<JsonType> | undefined;
  enum: unknown[] | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  exclusiveMinimum: number | undefined;
  exclusiveMaximum: number | undefined;
  multipleOf: number[];
  minLength: number | undefined;
  maxLength: number | undefined;
  patterns: string[];
  formats: string[];
  objects: ObjectPart[];
  required: Set<string>;
  minProperties: number | undefined;
  maxProperties: number | undefined;
  propertyNames: JsonSchema[];
  dependentRequired: Map<string, string[]>;
  /** Optional keys left out because including them would pull in a dependent schema. */
  forbidden: Set<string>;
  /** unevaluatedProperties: false — no key beyond those some part declares. */
  closed: boolean;
  arrays: ArrayPart[];
  minItems: number | undefined;
  maxItems: number | undefined;
  uniqueItems: boolean;
  contains: JsonSchema | undefined;
  minContains: number | undefined;
  examples: unknown[];
  /** The first `description` met: what the document says the value is (`The recipient's phone number`). */
  description: string | undefined;
  mustMatch: JsonSchema[];
  mustNotMatch: JsonSchema[];
  /** Whether a random choice was made (a branch, a condition): another try may come out differently. */
  chose: boolean;
}

interface Pending {
  alternatives: { oneOf: boolean; branches: JsonSchema[] }[];
  conditionals: { if: JsonSchema; then: JsonSchema | undefined; else: JsonSchema | undefined }[];
  dependentSchemas: Map<string, JsonSchema[]>;
}

function emptyFlat(): Flat {
  return {
    impossible: false,
    types: undefined,
    enum: undefined,
    minimum: undefined,
    maximum: undefined,
    exclusiveMinimum: undefined,
    exclusiveMaximum: undefined,
    multipleOf: [],
    minLength: undefined,
    maxLength: undefined,
    patterns: [],
    formats: [],
    objects: [],
    required: new Set(),
    minProperties: undefined,
    maxProperties: undefined,
    propertyNames: [],
    dependentRequired: new Map(),
    forbidden: new Set(),
    closed: false,
    arrays: [],
    minItems: undefined,
    maxItems: undefined,
    uniqueItems: false,
    contains: undefined,
    minContains: undefined,
    examples: [],
    description: undefined,
    mustMatch: [],
    mustNotMatch: [],
    chose: false,
  };
}

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): value is number => isNumber(value) && value >= 0;
const higher = (a: number | undefined, b: number) => (a === undefined || b > a ? b : a);
const lower = (a: number | undefined, b: number) => (a === undefined || b < a ? b : a);

function typeSet(type: unknown): Set<JsonType> | undefined {
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (!names) return undefined;
  // Swagger 2's `file` and other non-JSON types describe strings on the wire.
  return new Set(names.map((name) => (typeof name === 'string' && JSON_TYPES.has(name) ? name : 'string') as JsonType));
}

function intersectTypes(a: Set<JsonType>, b: Set<JsonType>): Set<JsonType> {
  const out = new Set<JsonType>();
  for (const type of a) {
    if (b.has(type)) out.add(type);
    else if (type === 'integer' && b.has('number')) out.add('integer');
    else if (type === 'number' && b.has('integer')) out.add('integer');
  }
  return out;
}

function intersectEnum(current: unknown[] | undefined, values: unknown[]): unknown[] {
  if (current === undefined) return values;
  const keys = new Set(values.map(canonicalJson));
  return current.filter((value) => keys.has(canonicalJson(value)));
}

/** A cut placeholder's whole schema (see simulator/cut-schemas.ts). */
type Expand = (pointer: string) => JsonSchema | undefined;
/** Placeholders expanded into placeholders (refs that only name each other) stop after this many. */
const MAX_HOPS = 8;

function absorb(
  flat: Flat,
  pending: Pending,
  schema: JsonSchema | undefined,
  expand: Expand | undefined,
  hops = 0,
): void {
  if (schema === undefined || schema === true) return;
  if (schema === false) {
    flat.impossible = true;
    return;
  }
  if (!isObject(schema)) return;
  const cut = expand && schema[CUT_KEYWORD];
  const whole = typeof cut === 'string' && hops < MAX_HOPS ? expand!(cut) : undefined;
  if (whole !== undefined) return absorb(flat, pending, whole, expand, hops + 1);
  let objectPart: ObjectPart | undefined;
  let arrayPart: ArrayPart | undefined;
  const object = () =>
    (objectPart ??= { properties: undefined, patternProperties: undefined, additionalProperties: undefined });
  const array = () => (arrayPart ??= { prefixItems: [], items: undefined });
  for (const keyword in schema) {
    const value = schema[keyword];
    switch (keyword) {
      case 'type': {
        const types = typeSet(value);
        if (types) flat.types = flat.types ? intersectTypes(flat.types, types) : types;
        break;
      }
      case 'enum':
        if (Array.isArray(value)) flat.enum = intersectEnum(flat.enum, value);
        break;
      case 'const':
        flat.enum = intersectEnum(flat.enum, [value]);
        break;
      case 'minimum':
        if (isNumber(value)) flat.minimum = higher(flat.minimum, value);
        break;
      case 'maximum':
        if (isNumber(value)) flat.maximum = lower(flat.maximum, value);
        break;
      case 'exclusiveMinimum':
        if (isNumber(value)) flat.exclusiveMinimum = higher(flat.exclusiveMinimum, value);
        else if (value === true && isNumber(schema.minimum))
          flat.exclusiveMinimum = higher(flat.exclusiveMinimum, schema.minimum);
        break;
      case 'exclusiveMaximum':
        if (isNumber(value)) flat.exclusiveMaximum = lower(flat.exclusiveMaximum, value);
        else if (value === true && isNumber(schema.maximum))
          flat.exclusiveMaximum = lower(flat.exclusiveMaximum, schema.maximum);
        break;
      case 'multipleOf':
        if (isNumber(value) && value > 0 && !flat.multipleOf.includes(value)) flat.multipleOf.push(value);
        break;
      case 'minLength':
        if (isCount(value)) flat.minLength = higher(flat.minLength, value);
        break;
      case 'maxLength':
        if (isCount(value)) flat.maxLength = lower(flat.maxLength, value);
        break;
      case 'pattern':
        if (typeof value === 'string' && !flat.patterns.includes(value)) flat.patterns.push(value);
        break;
      case 'format':
        if (typeof value === 'string' && !flat.formats.includes(value)) flat.formats.push(value);
        // An int32 is drawn within what ajv (library/ajv.ts) lets it be.
        if (typeof value === 'string' && Object.hasOwn(INTEGER_FORMAT_RANGES, value)) {
          const [min, max] = INTEGER_FORMAT_RANGES[value]!;
          flat.minimum = higher(flat.minimum, min);
          flat.maximum = lower(flat.maximum, max);
        }
        break;
      case 'properties':
        if (isObject(value)) object().properties = value as Record<string, JsonSchema>;
        break;
      case 'patternProperties':
        if (isObject(value)) object().patternProperties = value as Record<string, JsonSchema>;
        break;
      case 'additionalProperties':
        if (typeof value === 'boolean' || isObject(value)) object().additionalProperties = value as JsonSchema;
        break;
      case 'unevaluatedProperties':
        if (value === false) flat.closed = true;
        break;
      case 'required':
        if (Array.isArray(value)) for (const key of value) if (typeof key === 'string') flat.required.add(key);
        break;
      case 'minProperties':
        if (isCount(value)) flat.minProperties = higher(flat.minProperties, value);
        break;
      case 'maxProperties':
        if (isCount(value)) flat.maxProperties = lower(flat.maxProperties, value);
        break;
      case 'propertyNames':
        if (value !== undefined && value !== true) flat.propertyNames.push(value as JsonSchema);
        break;
      case 'dependentRequired':
        if (isObject(value)) {
          for (const [key, deps] of Object.entries(value)) {
            if (Array.isArray(deps))
              flat.dependentRequired.set(key, [
                ...(flat.dependentRequired.get(key) ?? []),
                ...deps.filter((d): d is string => typeof d === 'string'),
              ]);
          }
        }
        break;
      case 'dependentSchemas':
        if (isObject(value)) {
          for (const [key, dependent] of Object.entries(value))
            pending.dependentSchemas.set(key, [...(pending.dependentSchemas.get(key) ?? []), dependent as JsonSchema]);
        }
        break;
      case 'items':
        // Draft-4 tuples (`items: [...]`) mean what 2020-12 spells `prefixItems`.
        if (Array.isArray(value)) array().prefixItems = value as JsonSchema[];
        else if (typeof value === 'boolean' || isObject(value)) array().items = value as JsonSchema;
        break;
      case 'prefixItems':
        if (Array.isArray(value)) array().prefixItems = value as JsonSchema[];
        break;
      case 'minItems':
        if (isCount(value)) flat.minItems = higher(flat.minItems, value);
        break;
      case 'maxItems':
        if (isCount(value)) flat.maxItems = lower(flat.maxItems, value);
        break;
      case 'uniqueItems':
        if (value === true) flat.uniqueItems = true;
        break;
      case 'contains':
        // The walker builds one `contains` in; a second one, or a `maxContains`, is checked against this whole schema
        // (which the value must satisfy anyway, and which stays the same object from call to call).
        if (flat.contains === undefined) {
          flat.contains = value as JsonSchema;
          if (isCount(schema.minContains)) flat.minContains = schema.minContains;
          if (isCount(schema.maxContains)) flat.mustMatch.push(schema);
        } else {
          flat.mustMatch.push(schema);
        }
        break;
      case 'allOf':
        if (Array.isArray(value)) for (const member of value) absorb(flat, pending, member as JsonSchema, expand);
        break;
      case 'anyOf':
      case 'oneOf':
        if (Array.isArray(value) && value.length > 0)
          pending.alternatives.push({ oneOf: keyword === 'oneOf', branches: value as JsonSchema[] });
        else if (Array.isArray(value)) flat.impossible = true;
        break;
      case 'not':
        flat.mustNotMatch.push(value as JsonSchema);
        break;
      case 'if':
        pending.conditionals.push({
          if: value as JsonSchema,
          then: schema.then as JsonSchema | undefined,
          else: schema.else as JsonSchema | undefined,
        });
        break;
      case 'examples':
        if (Array.isArray(value)) flat.examples.push(...value);
        break;
      case 'description':
        if (typeof value === 'string') flat.description ??= value;
        break;
      case 'example':
      case 'default':
        if (value !== undefined) flat.examples.push(value);
        break;
    }
  }
  if (objectPart) flat.objects.push(objectPart);
  if (arrayPart) flat.arrays.push(arrayPart);
}

/**
 * Whether some branch of an alternative is taken last (a deleted object, a cut placeholder), by branch list (schemas
 * are long-lived, calls many).
 */
const lateBranchLists = new WeakMap<readonly JsonSchema[], boolean>();

function hasLateBranch(branches: readonly JsonSchema[]): boolean {
  let found = lateBranchLists.get(branches);
  if (found === undefined) lateBranchLists.set(branches, (found = branches.some(isLateBranch)));
  return found;
}

const isLateBranch = (branch: JsonSchema) => isDeletedBranch(branch) || (isObject(branch) && CUT_KEYWORD in branch);

/** Whether a branch describes a deleted object: its `deleted` can only be true. */
function isDeletedBranch(branch: JsonSchema): boolean {
  if (!isObject(branch) || !isObject(branch.properties)) return false;
  const deleted = (branch.properties as Record<string, unknown>).deleted;
  if (!isObject(deleted)) return false;
  return (
    deleted.const === true || (Array.isArray(deleted.enum) && deleted.enum.length === 1 && deleted.enum[0] === true)
  );
}

/** A cheap look at a branch's own type, const and enum: can it hold a value of the types already settled? */
function compatible(flat: Flat, branch: JsonSchema): boolean {
  if (branch === false) return false;
  if (!isObject(branch)) return true;
  const types = typeSet(branch.type);
  if (types && flat.types && intersectTypes(flat.types, types).size === 0) return false;
  if (flat.enum && Array.isArray(branch.enum) && intersectEnum(flat.enum, branch.enum).length === 0) return false;
  return true;
}

/**
 * Flats of single schemas that flatten without a choice, by schema: a response schema is long-lived and flattened
 * for every value of every call. Nothing changes a Flat once made.
 */
const plainFlats = new WeakMap<object, Flat>();
/** The same, for schemas whose cut placeholders were expanded (which the same placeholder without expansion is not). */
const expandedFlats = new WeakMap<object, Flat>();

/**
 * Flattens `schemas` (read as an allOf) into one `Flat`, choosing branches with `rng` (and, given `tried`, the
 * branches earlier tries did not take first). A taken oneOf branch adds the
 * others to `mustNotMatch`; a condition is taken with its `then` (the value will match `if`) or its `else` (the value
 * must not match `if`).
 */
export function resolve(
  schemas: readonly JsonSchema[],
  rng: Rng,
  tried?: Map<readonly JsonSchema[], Set<number>>,
  expand?: Expand,
): Flat {
  const flats = expand ? expandedFlats : plainFlats;
  const single = schemas.length === 1 && isObject(schemas[0]) ? schemas[0] : undefined;
  const known = single && flats.get(single);
  if (known) return known;
  const flat = emptyFlat();
  const pending: Pending = { alternatives: [], conditionals: [], dependentSchemas: new Map() };
  for (const schema of schemas) absorb(flat, pending, schema, expand);
  // Without branches, conditions or dependent schemas the flattening takes nothing from `rng` and ends here: the
  // same schema always flattens alike.
  if (
    single &&
    pending.alternatives.length === 0 &&
    pending.conditionals.length === 0 &&
    pending.dependentSchemas.size === 0
  ) {
    flats.set(single, flat);
    return flat;
  }
  for (let step = 0; step < 256 && !flat.impossible; step++) {
    const alternative = pending.alternatives.shift();
    if (alternative) {
      flat.chose ||= alternative.branches.length > 1;
      // Branches an earlier try of the same value took come last, so retries explore the others.
      const taken = tried?.get(alternative.branches);
      // A deleted object's branch (Stripe's `deleted_customer`) and a branch cut at conversion (a whole nested
      // resource where the other branch is its id) come after the others.
      let shuffled = rng.shuffle(alternative.branches.map((_, i) => i));
      if (hasLateBranch(alternative.branches))
        shuffled = [
          ...shuffled.filter((i) => !isLateBranch(alternative.branches[i]!)),
          ...shuffled.filter((i) => isLateBranch(alternative.branches[i]!)),
        ];
      const order = taken
        ? [...shuffled.filter((i) => !taken.has(i)), ...shuffled.filter((i) => taken.has(i))]
        : shuffled;
      const index = order.find((i) => compatible(flat, alternative.branches[i]!)) ?? order[0]!;
      if (tried) tried.set(alternative.branches, (taken ?? new Set()).add(index));
      if (alternative.oneOf) alternative.branches.forEach((branch, i) => i !== index && flat.mustNotMatch.push(branch));
      absorb(flat, pending, alternative.branches[index], expand);
      continue;
    }
    const conditional = pending.conditionals.shift();
    if (conditional) {
      flat.chose = true;
      if (rng.chance(0.5)) {
        absorb(flat, pending, conditional.if, expand);
        absorb(flat, pending, conditional.then, expand);
      } else {
        flat.mustNotMatch.push(conditional.if);
        absorb(flat, pending, conditional.else, expand);
      }
      continue;
    }
    if (pending.dependentSchemas.size === 0) break;
    // A dependent schema applies only when its key is present: required keys take it in, optional ones stay out.
    for (const [key, dependents] of pending.dependentSchemas) {
      if (flat.required.has(key)) for (const dependent of dependents) absorb(flat, pending, dependent, expand);
      else flat.forbidden.add(key);
    }
    pending.dependentSchemas.clear();
  }
  return flat;
}
