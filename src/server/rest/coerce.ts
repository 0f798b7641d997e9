import type { JsonSchema } from '../../library/tool.js';
import { MAX_JSON_DEPTH, depthExceeds } from '../json-body.js';
import { outOfIntegerRange } from './big-integers.js';

/**
 * Turning the strings of a URL, a header or a form into the typed values a tool's parameter schema asks for:
 * "42" → 42 for integers, "true" → true for booleans, repeated keys or a comma list → an array, JSON text → an
 * object. A string that does not fit its schema stays a string, so that validation names the real problem.
 */
export function coerceValues(values: readonly string[], schema: JsonSchema | undefined): unknown {
  const types = schemaTypes(schema);
  // Repeated keys always make an array; a single value does when the schema cannot take it as a string.
  if (types.has('array') && (values.length > 1 || !types.has('string'))) {
    const items = arrayItems(schema);
    if (values.length > 1) return values.map((item) => coerceScalar(item, items));
    const only = values[0] ?? '';
    if (/^\s*\[/.test(only)) {
      const parsed = parseJsonText(only);
      if (Array.isArray(parsed)) return parsed;
    }
    // One JSON object item: its commas are not list separators.
    if (/^\s*\{/.test(only) && schemaTypes(items).has('object')) return [coerceScalar(only, items)];
    return only === '' ? [] : only.split(',').map((item) => coerceScalar(item, items));
  }
  return coerceScalar(values[0] ?? '', schema);
}

export function coerceScalar(text: string, schema: JsonSchema | undefined): unknown {
  const types = schemaTypes(schema);
  // An int64 id past 2^53 is still an integer: taken as the nearest double rather than refused as "must be integer".
  // Past int64 (int32 where the format says so), compared exactly, it stays text that validation refuses.
  if (types.has('integer') && /^-?\d+$/.test(text) && !outOfIntegerRange(text, formatOf(schema))) return Number(text);
  if (types.has('number') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.has('null') && !types.has('string') && text === 'null') return null;
  if ((types.has('object') || types.has('array')) && /^\s*[[{]/.test(text)) {
    const parsed = parseJsonText(text);
    if (parsed !== undefined) return parsed;
  }
  return text;
}

/**
 * The JSON types a schema admits: its `type` (implied by `properties` or `items` when absent), or those of its
 * anyOf/oneOf/allOf members; enum and const values count too.
 */
export function schemaTypes(schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  const visit = (node: unknown, depth: number) => {
    if (node === null || typeof node !== 'object' || depth > 4) return;
    const record = node as Record<string, unknown>;
    if (typeof record.type === 'string') {
      types.add(record.type);
    } else if (Array.isArray(record.type)) {
      for (const type of record.type) if (typeof type === 'string') types.add(type);
    } else if (record.properties !== undefined) {
      types.add('object');
    } else if (record.items !== undefined) {
      types.add('array');
    }
    for (const value of [
      ...(Array.isArray(record.enum) ? record.enum : []),
      ...('const' in record ? [record.const] : []),
    ])
      types.add(jsonType(value));
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const members = record[key];
      if (Array.isArray(members)) for (const member of members) visit(member, depth + 1);
    }
  };
  visit(schema, 0);
  return types;
}

/** The `items` schema of an array schema, or of the first array member of its anyOf/oneOf/allOf. */
export function arrayItems(schema: JsonSchema | undefined): JsonSchema | undefined {
  const items = subschema(schema, 'items');
  if (items !== undefined || schema === null || typeof schema !== 'object') return items;
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    for (const member of members as JsonSchema[]) {
      const found = subschema(member, 'items');
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A keyword's schema (`items`, or `properties.NAME` via `propertySchema`), or undefined. */
export function subschema(schema: JsonSchema | undefined, keyword: string): JsonSchema | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const value = (schema as Record<string, unknown>)[keyword];
  return value !== null && (typeof value === 'object' || typeof value === 'boolean')
    ? (value as JsonSchema)
    : undefined;
}

export function propertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  const properties = subschema(schema, 'properties');
  return properties && typeof properties === 'object' && Object.hasOwn(properties, name)
    ? subschema(properties, name)
    : undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function parseJsonText(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return depthExceeds(value, MAX_JSON_DEPTH) ? undefined : value;
  } catch {
    return undefined;
  }
}

function formatOf(schema: JsonSchema | undefined): unknown {
  return typeof schema === 'object' ? schema.format : undefined;
}
