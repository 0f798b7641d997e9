/**
 * OpenAPI Schema Objects → self-contained JSON Schema 2020-12, the dialect the simulator's ajv compiles.
 *
 * OpenAPI 3.0 schemas are a JSON Schema look-alike (`nullable`, boolean `exclusiveMinimum`, `example`, no
 * `null` type); 3.1 schemas are 2020-12 already. Both get every local `$ref` inlined, OpenAPI-only keywords
 * dropped, keyword values JSON Schema forbids removed, and a bounded size: tool schemas become function
 * schemas and grammars, so a recursive or giant cloud schema must come out small and finite.
 */
import type { JsonSchema } from '../tool.js';
import { deref, isObject, resolvePointer, type JsonObject } from './refs.js';
import { cut, plainText } from './text.js';

export type SchemaDialect = '3.0' | '3.1';
/** Request schemas lose their readOnly properties, response schemas their writeOnly ones. */
export type SchemaUsage = 'request' | 'response';

export interface SchemaLimits {
  /**
   * Deepest nesting of sub-schemas kept (0: only the top schema's own keywords); deeper ones become placeholders that
   * keep only their type.
   */
  maxDepth: number;
  /** Most schema objects one converted schema may hold; a bigger one is rebuilt shallower until it fits. */
  maxNodes: number;
}

export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = { maxDepth: 12, maxNodes: 300 };

/** What conversion cut or dropped, summed over all schemas converted with the same counters. */
export interface ConversionStats {
  schemas: number;
  /** `$ref`s met again inside their own expansion, replaced by a placeholder. */
  recursive_refs: number;
  /** `$ref`s that are external, malformed or dangling, replaced by `{}`. */
  unresolved_refs: number;
  /** Sub-schemas below the depth limit, replaced by a placeholder. */
  depth_cuts: number;
  /** Schemas rebuilt with a smaller depth limit to fit the node budget. */
  shrunk_schemas: number;
  /** Sub-schemas replaced by a placeholder because even the shallowest rebuild exceeded the node budget. */
  budget_cuts: number;
  /** Keyword values JSON Schema forbids (a type of "file", a pattern that is no regular expression…), removed. */
  dropped_keywords: number;
}

export function conversionStats(): ConversionStats {
  return {
    schemas: 0,
    recursive_refs: 0,
    unresolved_refs: 0,
    depth_cuts: 0,
    shrunk_schemas: 0,
    budget_cuts: 0,
    dropped_keywords: 0,
  };
}

export function addStats(into: ConversionStats, from: ConversionStats): void {
  for (const key of Object.keys(into) as (keyof ConversionStats)[]) into[key] += from[key];
}

export interface ConvertOptions {
  /** The document `$ref`s point into. */
  document: unknown;
  dialect: SchemaDialect;
  usage: SchemaUsage;
  limits?: SchemaLimits;
  stats?: ConversionStats;
  /**
   * Where `schema` sits in `document` (a JSON pointer, `#/paths/…`), when it does: response placeholders then name the
   * node they stand for, so that an answer can expand it from the document (`CUT_KEYWORD`).
   */
  pointer?: string;
}

/**
 * On a response schema's placeholder, the JSON pointer into the API's document of the sub-schema the placeholder
 * stands for: the answer expands it there (simulator/cut-schemas.ts), so a body stays valid against the whole document
 * however deep the tool's own schema was cut.
 */
export const CUT_KEYWORD = 'x-toolenv-cut';

/** A JSON pointer one step below `at` (`~`, `/` escaped as RFC 6901 says, `%` since pointers are URI-decoded). */
export function pointerBelow(at: string, token: string | number): string {
  return `${at}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1').replace(/%/g, '%25')}`;
}

/** The dialect of an OpenAPI document's schemas, from its `openapi` version. */
export function dialectOf(document: unknown): SchemaDialect {
  const version = isObject(document) ? document.openapi : undefined;
  return typeof version === 'string' && /^3\.[1-9]/.test(version) ? '3.1' : '3.0';
}

/** Converts one schema; never throws, never returns a `$ref`. */
export function convertSchema(schema: unknown, options: ConvertOptions): JsonSchema {
  const limits = options.limits ?? DEFAULT_SCHEMA_LIMITS;
  const depths = [...new Set([limits.maxDepth, 12, 8, 6, 4, 3, 2, 1, 0].filter((d) => d <= limits.maxDepth))];
  let result: JsonSchema | undefined;
  let stats = conversionStats();
  for (const [i, maxDepth] of depths.entries()) {
    const last = i === depths.length - 1;
    const run = new Conversion(options, maxDepth, limits.maxNodes, last);
    try {
      result = run.node(schema, 0, options.usage === 'response' ? options.pointer : undefined);
    } catch (error) {
      if (error !== OVER_BUDGET) throw error;
      continue;
    }
    stats = run.stats;
    if (i > 0) stats.shrunk_schemas++;
    break;
  }
  stats.schemas++;
  if (options.stats) addStats(options.stats, stats);
  return result ?? {};
}

const OVER_BUDGET = Symbol('over budget');
/** Longest description or title kept inside a schema: some documents inline whole manuals (or base64 images) there. */
const MAX_TEXT_LENGTH = 1000;
const capped = (text: string) => (text.length > MAX_TEXT_LENGTH ? cut(plainText(text), MAX_TEXT_LENGTH) : text);

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
/** Type names real documents use that JSON Schema spells differently. */
const TYPE_ALIASES: Record<string, string> = {
  file: 'string',
  int: 'integer',
  int32: 'integer',
  int64: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  decimal: 'number',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  dict: 'object',
  map: 'object',
  list: 'array',
};

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const SCHEMA_ONE = new Set([
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const NUMBERS = new Set(['minimum', 'maximum']);
const COUNTS = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
]);
const BOOLEANS = new Set(['uniqueItems', 'readOnly', 'writeOnly', 'deprecated']);
const STRINGS = new Set(['title', 'description', 'format', 'contentMediaType', 'contentEncoding', '$comment']);
const VALUES = new Set(['const', 'default']);
/** Keywords a `$ref`'s siblings may carry without changing what validates; of these only a description is kept. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'summary',
  'deprecated',
  'readOnly',
  'writeOnly',
  'default',
  'example',
  'examples',
  '$comment',
]);

/** Keywords a placeholder keeps (or that only annotate): a schema of these alone loses nothing to a cut. */
const KEPT_BY_PLACEHOLDER = new Set([
  'type',
  'description',
  'nullable',
  'title',
  'example',
  'examples',
  'enum',
  'const',
]);

const patternValidity = new Map<string, boolean>();

/** ajv compiles patterns with the `u` flag, which rejects escapes other engines let through (`\-`, `\_`…). */
function isValidPattern(pattern: string): boolean {
  let valid = patternValidity.get(pattern);
  if (valid === undefined) {
    try {
      new RegExp(pattern, 'u');
      valid = true;
    } catch {
      valid = false;
    }
    if (patternValidity.size > 50_000) patternValidity.clear();
    patternValidity.set(pattern, valid);
  }
  return valid;
}

/** Examples inside schemas illustrate; a few small ones do that (some documents embed whole 400 kB responses). */
const MAX_SCHEMA_EXAMPLES = 3;
const MAX_SCHEMA_EXAMPLE_CHARS = 1000;

function smallExamples(values: unknown[]): unknown[] {
  return values
    .filter((value) => value !== undefined && (JSON.stringify(value)?.length ?? 0) <= MAX_SCHEMA_EXAMPLE_CHARS)
    .slice(0, MAX_SCHEMA_EXAMPLES);
}

function toNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** One attempt at converting a schema under one depth limit; throws OVER_BUDGET when it outgrows the budget. */
class Conversion {
  readonly stats = conversionStats();
  private readonly document: unknown;
  private readonly dialect: SchemaDialect;
  private readonly usage: SchemaUsage;
  /** Response placeholders are marked with where they came from; request schemas are shown to models as they are. */
  private readonly markCuts: boolean;
  private readonly stack = new Set<string>();
  private nodes = 0;
  /** Placeholders that lost a constraint: each admits more than the schema it stands for. */
  private lossyCuts = 0;

  constructor(
    options: ConvertOptions,
    private readonly maxDepth: number,
    private readonly maxNodes: number,
    /** The last attempt cuts what exceeds the budget instead of giving up. */
    private readonly cutOverBudget: boolean,
  ) {
    this.document = options.document;
    this.dialect = options.dialect;
    this.usage = options.usage;
    this.markCuts = options.usage === 'response';
  }

  /** `at`: the node's JSON pointer in the document, where known. */
  node(value: unknown, depth: number, at: string | undefined): JsonSchema {
    if (typeof value === 'boolean') return value;
    if (!isObject(value)) {
      this.stats.dropped_keywords++;
      return {};
    }
    if (typeof value.$ref === 'string') return this.ref(value, value.$ref, depth, at);
    if (!this.count()) return this.placeholder(value, at);
    if (depth > this.maxDepth) {
      this.stats.depth_cuts++;
      return this.placeholder(value, at);
    }
    return this.keywords(value, depth, at);
  }

  /** Counts one more schema object in the output; false (on the last attempt) once the budget is spent. */
  private count(): boolean {
    if (++this.nodes <= this.maxNodes) return true;
    if (!this.cutOverBudget) throw OVER_BUDGET;
    this.stats.budget_cuts++;
    return false;
  }

  private ref(value: JsonObject, ref: string, depth: number, at: string | undefined): JsonSchema {
    const target = resolvePointer(this.document, ref);
    if (target === undefined) {
      this.stats.unresolved_refs++;
      return {};
    }
    let inlined: JsonSchema;
    if (this.stack.has(ref)) {
      this.count();
      this.stats.recursive_refs++;
      inlined = this.placeholder(target, this.markCuts ? ref : undefined);
    } else {
      this.stack.add(ref);
      try {
        inlined = this.node(target, depth, this.markCuts ? ref : undefined);
      } finally {
        this.stack.delete(ref);
      }
    }
    return this.withSiblings(inlined, value, depth, at);
  }

  /**
   * A `$ref`'s sibling keywords. OpenAPI 3.0 ignores them, but a sibling description only annotates, so it is
   * kept in both dialects; in 3.1 siblings that constrain apply alongside the target (an `allOf`).
   */
  private withSiblings(inlined: JsonSchema, value: JsonObject, depth: number, at: string | undefined): JsonSchema {
    const siblings = Object.keys(value).filter((key) => key !== '$ref' && !key.startsWith('x-'));
    if (siblings.length === 0) return inlined;
    const annotationsOnly = siblings.every((key) => ANNOTATIONS.has(key));
    if (this.dialect === '3.0' || annotationsOnly) {
      if (typeof value.description !== 'string' || !value.description.trim()) return inlined;
      const description = capped(value.description);
      return typeof inlined === 'boolean' ? (inlined ? { description } : inlined) : { ...inlined, description };
    }
    const { $ref: _ref, ...rest } = value;
    const own = this.keywords(rest, depth, at);
    return typeof own === 'boolean' ? own : { allOf: [inlined], ...own };
  }

  /** What stands in for a schema that is not expanded: its type (so the shape stays recognisable), nothing inside. */
  private placeholder(value: unknown, at: string | undefined): JsonSchema {
    const target = deref(this.document, value);
    if (typeof target === 'boolean') return target;
    if (!isObject(target)) return {};
    const types = normalizeType(target.type) ?? [];
    if (types.length === 0 && (isObject(target.properties) || isObject(target.additionalProperties)))
      types.push('object');
    if (this.dialect === '3.0' && target.nullable === true && types.length > 0 && !types.includes('null'))
      types.push('null');
    const out: JsonObject = {};
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    if (types.includes('array')) out.items = {};
    // Values, not sub-schemas: they cost no budget, and a union's members are often told apart by them alone
    // (`type: {enum: [function]}` beside `type: {enum: [file_search]}`).
    if (Array.isArray(target.enum)) {
      const values: unknown[] = [...target.enum];
      if (this.dialect === '3.0' && target.nullable === true && !values.includes(null)) values.push(null);
      out.enum = values;
    }
    if ('const' in target) out.const = target.const;
    if (typeof target.description === 'string' && target.description.trim())
      out.description = capped(target.description);
    if (!Object.keys(target).every((key) => KEPT_BY_PLACEHOLDER.has(key))) {
      this.lossyCuts++;
      // Marked only where the placeholder lost something: a bare `{type: string}` needs no expanding.
      if (this.markCuts && at !== undefined) out[CUT_KEYWORD] = at;
    }
    return out;
  }

  private keywords(node: JsonObject, depth: number, at: string | undefined): JsonSchema {
    const out: JsonObject = {};
    const child = (value: unknown, ...path: (string | number)[]) =>
      this.node(value, depth + 1, at === undefined ? undefined : path.reduce<string>(pointerBelow, at));
    const drop = () => this.stats.dropped_keywords++;
    let oneOfCut = false;
    for (const [key, value] of Object.entries(node)) {
      if (SCHEMA_MAPS.has(key)) {
        if (key !== 'properties') {
          if (!isObject(value)) drop();
          else out[key] = this.schemaMap(value, (v, name) => child(v, key, name), key === 'patternProperties');
        }
      } else if (SCHEMA_ONE.has(key)) {
        if (typeof value === 'boolean' || isObject(value)) out[key] = child(value, key);
        else drop();
      } else if (SCHEMA_LISTS.has(key)) {
        const cutsBefore = this.lossyCuts;
        if (Array.isArray(value) && value.length > 0) out[key] = value.map((v, i) => child(v, key, i));
        else drop();
        if (key === 'oneOf' && this.lossyCuts > cutsBefore) oneOfCut = true;
      } else if (NUMBERS.has(key)) {
        const n = toNumber(value);
        if (n === undefined) drop();
        else out[key] = n;
      } else if (COUNTS.has(key)) {
        const n = toNumber(value);
        if (n === undefined || n < 0 || !Number.isInteger(n)) drop();
        else out[key] = n;
      } else if (BOOLEANS.has(key)) {
        if (typeof value === 'boolean') out[key] = value;
        else drop();
      } else if (STRINGS.has(key)) {
        if (typeof value !== 'string') drop();
        else out[key] = capped(value);
      } else if (VALUES.has(key)) {
        out[key] = value;
      } else {
        this.special(key, value, node, out, child, drop);
      }
    }
    if (isObject(node.properties)) this.properties(node.properties, out, (v, name) => child(v, 'properties', name));
    else if (node.properties !== undefined) drop();
    if (oneOfCut) anyOfInstead(out);
    this.openapiSemantics(node, out);
    return out;
  }

  /** Keywords whose conversion depends on their value's shape or on the dialect. Anything not handled is dropped. */
  private special(
    key: string,
    value: unknown,
    node: JsonObject,
    out: JsonObject,
    child: (v: unknown, ...path: (string | number)[]) => JsonSchema,
    drop: () => void,
  ): void {
    switch (key) {
      case 'type': {
        const types = normalizeType(value);
        if (types === undefined) drop();
        else if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
        return;
      }
      case 'items':
        // An array of schemas is the tuple form, which 2020-12 spells prefixItems.
        if (Array.isArray(value)) {
          if (value.length > 0) out.prefixItems = value.map((v, i) => child(v, 'items', i));
        } else if (typeof value === 'boolean' || isObject(value)) out.items = child(value, 'items');
        else drop();
        return;
      case 'enum':
        if (Array.isArray(value)) out.enum = [...value];
        else drop();
        return;
      case 'required':
        // `required: true` on a property is a Swagger-ism the parent's properties() turns into its required list.
        if (Array.isArray(value))
          out.required = [...new Set(value.filter((name): name is string => typeof name === 'string'))];
        else if (typeof value !== 'boolean') drop();
        return;
      case 'pattern':
        if (typeof value === 'string' && isValidPattern(value)) out.pattern = value;
        else drop();
        return;
      case 'multipleOf': {
        const n = toNumber(value);
        if (n === undefined || n <= 0) drop();
        else out.multipleOf = n;
        return;
      }
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        // The boolean (3.0) form is applied with minimum/maximum in openapiSemantics().
        if (typeof value === 'boolean') return;
        const n = toNumber(value);
        if (n === undefined) drop();
        else out[key] = n;
        return;
      }
      case 'examples':
        if (Array.isArray(value)) {
          const kept = smallExamples(value);
          if (kept.length > 0) out.examples = kept;
        }
        return;
      case 'example':
        if (!Array.isArray(node.examples)) {
          const kept = smallExamples([value]);
          if (kept.length > 0) out.examples = kept;
        }
        return;
      case 'dependentRequired':
        if (
          isObject(value) &&
          Object.values(value).every((names) => Array.isArray(names) && names.every((n) => typeof n === 'string'))
        ) {
          out.dependentRequired = value;
        } else drop();
        return;
      default:
      // discriminator, xml, externalDocs, nullable (read in openapiSemantics), x-* extensions, $id/$schema/$anchor
      // (ids repeated across inlined copies would clash in one ajv), $defs (every ref is inlined) and unknown words.
    }
  }

  private schemaMap(
    value: JsonObject,
    child: (v: unknown, name: string) => JsonSchema,
    keysArePatterns: boolean,
  ): JsonObject {
    const out: JsonObject = {};
    for (const [name, schema] of Object.entries(value)) {
      if (keysArePatterns && !isValidPattern(name)) {
        this.stats.dropped_keywords++;
        continue;
      }
      out[name] = child(schema, name);
    }
    return out;
  }

  private properties(properties: JsonObject, out: JsonObject, child: (v: unknown, name: string) => JsonSchema): void {
    const hidden = this.usage === 'request' ? 'readOnly' : 'writeOnly';
    const kept: JsonObject = {};
    const removed = new Set<string>();
    const flagged: string[] = [];
    for (const [name, schema] of Object.entries(properties)) {
      if (this.flag(schema, hidden)) {
        removed.add(name);
        continue;
      }
      if (isObject(schema) && schema.required === true) flagged.push(name);
      kept[name] = child(schema, name);
    }
    out.properties = kept;
    const required = [...((out.required as string[] | undefined) ?? []), ...flagged].filter(
      (name) => !removed.has(name),
    );
    if (required.length > 0) out.required = [...new Set(required)];
    else delete out.required;
  }

  /** Whether a property schema (or what its `$ref` points at) carries `readOnly: true` / `writeOnly: true`. */
  private flag(schema: unknown, keyword: 'readOnly' | 'writeOnly'): boolean {
    if (!isObject(schema)) return false;
    if (schema[keyword] === true) return true;
    const target = typeof schema.$ref === 'string' ? deref(this.document, schema) : undefined;
    return isObject(target) && target[keyword] === true;
  }

  /** The 3.0 keywords whose meaning JSON Schema spells another way, and arrays without `items`. */
  private openapiSemantics(node: JsonObject, out: JsonObject): void {
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (node[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      }
    }
    if (this.dialect === '3.0' && node.nullable === true && out.type !== undefined) {
      const types = Array.isArray(out.type) ? (out.type as string[]) : [out.type as string];
      if (!types.includes('null')) out.type = [...types, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum.push(null);
    } else if (this.dialect === '3.0' && node.nullable === true && out.type === undefined) {
      // 3.0.3 says nullable needs a type beside it, but documents write it beside a union to mean "or null", and
      // their APIs take null there (GitHub clears an issue's milestone with `"milestone": null`).
      addNullMember(out);
    }
    nullBesideUnion(out);
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (types.includes('array') && out.items === undefined && out.prefixItems === undefined) out.items = {};
  }
}

/**
 * A cut member admits more than it stood for, so a value of another member may match it too and "exactly one" would
 * refuse what the document allows: the union becomes `anyOf`, so that a cut only ever widens what validates.
 */
function anyOfInstead(out: JsonObject): void {
  const members = out.oneOf as JsonSchema[];
  delete out.oneOf;
  if (out.anyOf === undefined) out.anyOf = members;
  else out.allOf = [...((out.allOf as JsonSchema[] | undefined) ?? []), { anyOf: members }];
}

/**
 * `{type: "null", oneOf: [string, number, …]}` admits no value at all (the union's members exclude null), yet real
 * documents write it (vercel's EdgeConfigItemValue) to mean "one of these, or null": read it that way, making null
 * one more member of the union.
 */
function nullBesideUnion(out: JsonObject): void {
  if (out.type !== 'null') return;
  if (addNullMember(out)) delete out.type;
}

/** Makes null one more member of the schema's oneOf or anyOf when none admits it; whether it did. */
function addNullMember(out: JsonObject): boolean {
  const key = Array.isArray(out.oneOf) ? 'oneOf' : Array.isArray(out.anyOf) ? 'anyOf' : undefined;
  if (key === undefined) return false;
  const members = out[key] as JsonSchema[];
  const admitsNull = (member: JsonSchema) =>
    typeof member === 'boolean'
      ? member
      : member.type === undefined ||
        member.type === 'null' ||
        (Array.isArray(member.type) && member.type.includes('null'));
  if (members.some(admitsNull)) return false;
  out[key] = [...members, { type: 'null' }];
  return true;
}

/** The JSON types a `type` value names: undefined when it names none (so it is dropped), [] for "any". */
function normalizeType(value: unknown): string[] | undefined {
  const names = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (names === undefined) return undefined;
  const types: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const lower = name.trim().toLowerCase();
    const type = JSON_TYPES.has(lower) ? lower : TYPE_ALIASES[lower];
    if (type !== undefined && !types.includes(type)) types.push(type);
    else if (lower === 'any') return [];
  }
  return types.length > 0 ? types : undefined;
}
