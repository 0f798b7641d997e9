/** Small readers over the JSON Schemas in tool records: types, `$ref`s inside the same schema, combinators. */
import type { JsonSchema } from '../library/tool.js';

export type SchemaNode = { [keyword: string]: unknown };

export interface ScalarType {
  type?: string;
  format?: string;
  /** An array of this scalar (`petIds: integer[]`). */
  array: boolean;
}

const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);

export function asNode(schema: unknown): SchemaNode | undefined {
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (schema as SchemaNode) : undefined;
}

/**
 * Follows a local `$ref` (`#/$defs/Pet`, `#/components/schemas/Pet`) inside `root`; a ref that does not resolve stays
 * as it is.
 */
export function deref(schema: JsonSchema | unknown, root: unknown, hops = 8): SchemaNode | undefined {
  let node = asNode(schema);
  while (node && typeof node.$ref === 'string' && hops-- > 0) {
    const target = pointer(root, node.$ref);
    if (!target) return node;
    node = target;
  }
  return node;
}

function pointer(root: unknown, ref: string): SchemaNode | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    const node = asNode(at);
    if (!node || !Object.hasOwn(node, part)) return undefined;
    at = node[part];
  }
  return asNode(at);
}

/** The name a `$ref` points at (`#/components/schemas/Pet` → `Pet`), or the schema's title. */
export function schemaName(node: SchemaNode): string | undefined {
  if (typeof node.title === 'string') return node.title;
  if (typeof node.$ref === 'string') return node.$ref.split('/').pop();
  return undefined;
}

function primaryType(node: SchemaNode): string | undefined {
  const t = node.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  return undefined;
}

/** The scalar type a value of this schema has, or undefined when it is an object or an array of objects. */
export function scalarType(schema: unknown, root: unknown): ScalarType | undefined {
  const node = deref(schema, root);
  if (!node) return undefined;
  const type = primaryType(node);
  if (type === 'array' || (type === undefined && node.items !== undefined)) {
    const items = deref(node.items, root);
    if (!items) return { array: true };
    const inner = primaryType(items);
    if (inner !== undefined && !SCALARS.has(inner)) return undefined;
    if (inner === undefined && isObjectLike(items)) return undefined;
    return { type: inner, format: stringOrUndefined(items.format), array: true };
  }
  if (type !== undefined && !SCALARS.has(type)) return undefined;
  if (type === undefined && isObjectLike(node)) return undefined;
  return { type, format: stringOrUndefined(node.format), array: false };
}

export function isObjectLike(node: SchemaNode): boolean {
  return (
    node.properties !== undefined ||
    node.allOf !== undefined ||
    node.oneOf !== undefined ||
    node.anyOf !== undefined ||
    node.additionalProperties !== undefined ||
    typeof node.$ref === 'string'
  );
}

/** The member schemas of allOf/oneOf/anyOf, each of which describes the same value. */
export function variants(node: SchemaNode): unknown[] {
  const out: unknown[] = [];
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const list = node[key];
    if (Array.isArray(list)) out.push(...list);
  }
  return out;
}

export function properties(node: SchemaNode): [string, unknown][] {
  const props = asNode(node.properties);
  return props ? Object.entries(props) : [];
}

export function requiredList(node: SchemaNode): string[] {
  return Array.isArray(node.required) ? node.required.filter((x): x is string => typeof x === 'string') : [];
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const INTEGER_FORMATS = new Set(['int32', 'int64', 'integer', 'long', 'int']);

/**
 * Whether a value of type `from` can be passed where `to` is expected: same JSON type (integer and number
 * interchange), an array parameter takes its item type, and two declared formats must agree.
 */
export function typesFit(from: ScalarType, to: ScalarType): boolean {
  if (from.array && !to.array) return false;
  if (from.type !== undefined && to.type !== undefined) {
    const numeric = (t: string) => t === 'integer' || t === 'number';
    if (from.type !== to.type && !(numeric(from.type) && numeric(to.type))) return false;
  }
  if (from.format !== undefined && to.format !== undefined && from.format !== to.format) {
    if (!(INTEGER_FORMATS.has(from.format) && INTEGER_FORMATS.has(to.format))) return false;
  }
  return true;
}
