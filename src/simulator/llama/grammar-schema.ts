import type { JsonSchema } from '../../library/tool.js';

/**
 * Turns a tool's response schema into the subset node-llama-cpp's JSON-schema grammar expresses (type, properties,
 * items, prefixItems, enum, const, oneOf, min/maxItems, min/maxLength, three string formats). What it cannot
 * express is dropped (pattern, numeric bounds, most formats), `$ref`s are inlined, `allOf` is merged, and depth
 * and object width are capped so the grammar stays small. The grammar only guides generation: every body is still
 * validated against the real schema afterwards, so a dropped constraint costs a retry, never a wrong answer.
 */

export type GrammarSchema = { [keyword: string]: unknown };

export interface GrammarSchemaOptions {
  /** Nesting below this depth becomes a scalar; default 6. */
  maxDepth?: number;
  /** Properties kept per object: all required ones, then optional ones up to this count; default 16. */
  maxProperties?: number;
  /**
   * Longest string written where the schema sets no maxLength (a longer minLength wins); default no cap. Small
   * models fall into repeating one character inside a string until the token budget runs out: a cap ends the string.
   */
  maxStringLength?: number;
}

type Node = { [keyword: string]: unknown };

const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'];
const GRAMMAR_FORMATS = new Set(['date-time', 'date', 'time']);
const SCALARS: GrammarSchema = { type: ['string', 'number', 'boolean', 'null'] };
/** Any JSON value: the grammar's own recursive any-JSON rule inside the object and array branches. */
const ANY: GrammarSchema = { oneOf: [SCALARS, { type: 'object', additionalProperties: true }, { type: 'array' }] };

export function grammarSchema(schema: JsonSchema, options: GrammarSchemaOptions = {}): GrammarSchema {
  const walker = new Walker(schema, options.maxDepth ?? 6, options.maxProperties ?? 16, options.maxStringLength);
  return walker.convert(schema, 0, []);
}

class Walker {
  constructor(
    private readonly root: JsonSchema,
    private readonly maxDepth: number,
    private readonly maxProperties: number,
    private readonly maxStringLength: number | undefined,
  ) {}

  convert(schema: JsonSchema | undefined, depth: number, refs: string[]): GrammarSchema {
    if (schema === undefined || typeof schema === 'boolean') return this.any(depth);
    let node: Node = schema;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const target = refs.includes(ref) ? undefined : this.resolve(ref);
      // A recursive or unresolvable reference: anything goes from here (validation still applies).
      if (target === undefined || typeof target === 'boolean') return this.any(depth);
      const { $ref: _, ...siblings } = node;
      return this.convert({ ...target, ...siblings }, depth, [...refs, ref]);
    }
    if (Array.isArray(node.allOf)) node = this.mergeAllOf(node, refs);
    if (node.nullable === true) {
      const { nullable: _, ...rest } = node;
      return oneOf([this.convert(rest, depth, refs), { type: 'null' }]);
    }

    const branches = Array.isArray(node.oneOf) ? node.oneOf : Array.isArray(node.anyOf) ? node.anyOf : undefined;
    if (branches) {
      const { oneOf: _o, anyOf: _a, ...siblings } = node;
      const shared = Object.keys(siblings).some((k) => k === 'type' || k === 'properties' || k === 'items');
      return oneOf(
        branches.map((branch: JsonSchema) =>
          this.convert(shared && typeof branch === 'object' ? { ...siblings, ...branch } : branch, depth, refs),
        ),
      );
    }

    if ('const' in node) return isScalar(node.const) ? { const: node.const } : this.any(depth);
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter(isScalar);
      return values.length > 0 ? { enum: values } : this.any(depth);
    }

    const types = Array.isArray(node.type)
      ? node.type.filter((t): t is string => typeof t === 'string')
      : typeof node.type === 'string'
        ? [node.type]
        : inferTypes(node);
    if (types.length === 0) return this.any(depth);
    if (types.length > 1) {
      if (types.every((t) => SCALAR_TYPES.includes(t))) return { type: types };
      return oneOf(types.map((type) => this.convert({ ...node, type }, depth, refs)));
    }
    const [type] = types;
    if (depth >= this.maxDepth && (type === 'object' || type === 'array')) return SCALARS;
    if (type === 'object') return this.object(node, depth, refs);
    if (type === 'array') return this.array(node, depth, refs);
    if (type === 'string') return string(node, this.maxStringLength);
    if (type !== undefined && SCALAR_TYPES.includes(type)) return { type };
    return this.any(depth);
  }

  private object(node: Node, depth: number, refs: string[]): GrammarSchema {
    const properties = isNode(node.properties) ? Object.entries(node.properties) : [];
    if (properties.length === 0) {
      const additional = node.additionalProperties;
      const out: GrammarSchema = {
        type: 'object',
        additionalProperties:
          additional === false ? false : this.convert(isNode(additional) ? additional : true, depth + 1, refs),
      };
      if (typeof node.maxProperties === 'number') out.maxProperties = node.maxProperties;
      if (typeof node.minProperties === 'number') out.minProperties = node.minProperties;
      return out;
    }
    // The grammar writes every property it is given: required ones always, optional ones while there is room.
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    let room = Math.max(0, this.maxProperties - properties.filter(([name]) => required.has(name)).length);
    const kept: Record<string, GrammarSchema> = {};
    for (const [name, value] of properties) {
      if (!required.has(name)) {
        if (room === 0) continue;
        room--;
      }
      kept[name] = this.convert(value as JsonSchema, depth + 1, refs);
    }
    return { type: 'object', properties: kept };
  }

  private array(node: Node, depth: number, refs: string[]): GrammarSchema {
    const out: GrammarSchema = { type: 'array' };
    if (Array.isArray(node.prefixItems))
      out.prefixItems = node.prefixItems.map((item: JsonSchema) => this.convert(item, depth + 1, refs));
    if (node.items !== undefined && typeof node.items !== 'boolean')
      out.items = this.convert(node.items as JsonSchema, depth + 1, refs);
    else if (!Array.isArray(node.prefixItems)) out.items = this.any(depth + 1);
    if (typeof node.minItems === 'number') out.minItems = node.minItems;
    if (typeof node.maxItems === 'number') out.maxItems = node.maxItems;
    return out;
  }

  /** Any JSON value; a scalar once the depth cap is reached. */
  private any(depth: number): GrammarSchema {
    return depth >= this.maxDepth ? SCALARS : ANY;
  }

  /** allOf members merged into one schema: properties and required united, other keywords first-come. */
  private mergeAllOf(node: Node, refs: string[]): Node {
    const { allOf, ...rest } = node;
    let merged: Node = rest;
    for (const member of allOf as JsonSchema[]) {
      let part = member;
      for (let hops = 0; isNode(part) && typeof part.$ref === 'string' && hops < 8 && !refs.includes(part.$ref); hops++)
        part = this.resolve(part.$ref) ?? true;
      if (!isNode(part)) continue;
      const inner = Array.isArray(part.allOf) ? this.mergeAllOf(part, refs) : part;
      merged = {
        ...inner,
        ...merged,
        properties: {
          ...(isNode(inner.properties) ? inner.properties : {}),
          ...(isNode(merged.properties) ? merged.properties : {}),
        },
        required: [
          ...new Set([
            ...(Array.isArray(inner.required) ? inner.required : []),
            ...(Array.isArray(merged.required) ? merged.required : []),
          ]),
        ],
      };
    }
    return merged;
  }

  /** A local JSON Pointer reference (`#/$defs/Pet`, `#/components/schemas/Pet`) into the root schema. */
  private resolve(ref: string): JsonSchema | undefined {
    if (!ref.startsWith('#')) return undefined;
    let target: unknown = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isNode(target)) return undefined;
      target = target[key];
    }
    return isNode(target) || typeof target === 'boolean' ? (target as JsonSchema) : undefined;
  }
}

function string(node: Node, cap: number | undefined): GrammarSchema {
  if (typeof node.format === 'string' && GRAMMAR_FORMATS.has(node.format))
    return { type: 'string', format: node.format };
  const out: GrammarSchema = { type: 'string' };
  if (typeof node.minLength === 'number') out.minLength = node.minLength;
  if (typeof node.maxLength === 'number') out.maxLength = node.maxLength;
  else if (cap !== undefined) out.maxLength = Math.max(cap, typeof node.minLength === 'number' ? node.minLength : 0);
  return out;
}

function inferTypes(node: Node): string[] {
  if (isNode(node.properties) || node.additionalProperties !== undefined) return ['object'];
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return ['array'];
  return [];
}

function oneOf(branches: GrammarSchema[]): GrammarSchema {
  return branches.length === 1 ? branches[0]! : { oneOf: branches };
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
