import type { JsonSchema, ParamLocation, Tool } from '../library/tool.js';
import { nameKey } from '../simulator/synth/names.js';
import type { Arguments } from '../simulator/types.js';

export type Scalar = string | number | boolean;

/** One scalar the request carries: where it travels, its name (the innermost property) and its value. */
export interface RequestScalar {
  in: ParamLocation;
  /** Where the value sits in what is sent, `/`-joined: `name`, or `owner/login` for a field of a body object. */
  path: string;
  key: string;
  value: Scalar;
}

/** One field of a response object, with what the checks read around it. */
export interface ResponseField {
  /** JSON Pointer into the body. */
  path: string;
  /** The field's own name, as the API wrote it. */
  name: string;
  /** nameKey of the name: `userId`, `user_id` and `UserID` alike. */
  key: string;
  value: unknown;
  /** The object holding the field. */
  parent: Record<string, unknown>;
  /** format and description of the field's schema, where the response schema says. */
  format?: string;
  description?: string;
  /** Whether the field belongs to a primary record (the body, its items, or the records a wrapper holds). */
  record: boolean;
}

export const isScalar = (value: unknown): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value);
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The scalars of a request that reach the API's path, query or body (headers and cookies are transport, not
 * data), nested objects flattened to their leaves; array items of scalars count one by one. Tools without
 * bindings (non-REST formats) send everything as the body.
 */
export function requestScalars(tool: Tool, args: Arguments): RequestScalar[] {
  const out: RequestScalar[] = [];
  const visit = (location: ParamLocation, path: string, key: string, value: unknown, depth: number) => {
    if (isScalar(value)) out.push({ in: location, path, key, value });
    else if (Array.isArray(value))
      for (const item of value) if (isScalar(item)) out.push({ in: location, path, key, value: item });
    if (isRecord(value) && depth < 4)
      for (const [name, child] of Object.entries(value)) visit(location, `${path}/${name}`, name, child, depth + 1);
  };
  for (const [name, value] of Object.entries(args)) {
    const binding = tool.bindings?.[name];
    const location = binding?.in ?? 'body';
    if (location === 'header' || location === 'cookie') continue;
    // A property bound to the whole body holds the body's own fields: they are top-level names on the wire.
    if (binding?.in === 'body' && binding.name === '' && isRecord(value))
      for (const [field, child] of Object.entries(value)) visit(location, field, field, child, 0);
    else visit(location, name, name, value, 0);
  }
  return out;
}

/** Property names under which an object body keeps its records (`{data: [...]}`, `{items: [...]}`). */
const WRAPPERS = new Set([
  'data',
  'result',
  'results',
  'items',
  'item',
  'records',
  'record',
  'entries',
  'value',
  'values',
  'hits',
  'list',
  'objects',
  'resource',
  'resources',
  'response',
  'payload',
  'content',
  'rows',
  'elements',
  'nodes',
  'edges',
]);

/**
 * The primary records of a body: the body itself when an object, its items when an array, and the records under a
 * wrapper or under the tool's resource name (`{pets: [...]}`), one level down.
 */
export function primaryRecords(body: unknown, resources: ReadonlySet<string> = new Set()): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  const add = (value: unknown) => {
    if (isRecord(value)) records.push(value);
    else if (Array.isArray(value)) for (const item of value) if (isRecord(item)) records.push(item);
  };
  add(body);
  if (isRecord(body)) {
    for (const [name, value] of Object.entries(body)) {
      const key = nameKey(name);
      if ((WRAPPERS.has(key) || resources.has(key)) && (isRecord(value) || Array.isArray(value))) add(value);
    }
  }
  return records;
}

/** Every field of every object in the body (depth-first), each with its schema's format and description where known. */
export function responseFields(
  body: unknown,
  schema: JsonSchema | undefined,
  records: readonly Record<string, unknown>[],
): ResponseField[] {
  const primary = new Set<object>(records);
  const out: ResponseField[] = [];
  const visit = (value: unknown, at: string, schemas: JsonSchema[], depth: number) => {
    if (depth > 32) return;
    if (Array.isArray(value)) {
      const items = schemas.flatMap((s) => subSchemas(s, (o) => o.items));
      value.forEach((item, i) => visit(item, `${at}/${i}`, items, depth + 1));
      return;
    }
    if (!isRecord(value)) return;
    for (const [name, child] of Object.entries(value)) {
      const childSchemas = schemas.flatMap((s) =>
        subSchemas(s, (o) => (isRecord(o.properties) ? (o.properties[name] as JsonSchema | undefined) : undefined)),
      );
      const annotated = childSchemas.find(
        (s) => typeof s === 'object' && (typeof s.format === 'string' || typeof s.description === 'string'),
      );
      const annotations = typeof annotated === 'object' ? annotated : {};
      out.push({
        path: `${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        name,
        key: nameKey(name),
        value: child,
        parent: value,
        ...(typeof annotations.format === 'string' ? { format: annotations.format } : {}),
        ...(typeof annotations.description === 'string' ? { description: annotations.description } : {}),
        record: primary.has(value),
      });
      visit(child, `${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, childSchemas, depth + 1);
    }
  };
  visit(body, '', schema === undefined ? [] : [schema], 0);
  return out;
}

/** `pick` applied to a schema and to the branches of its allOf / anyOf / oneOf (one level of composition per step). */
function subSchemas(schema: JsonSchema, pick: (schema: Record<string, unknown>) => unknown): JsonSchema[] {
  if (typeof schema !== 'object') return [];
  const found: JsonSchema[] = [];
  const own = pick(schema);
  if (own !== undefined && (typeof own === 'object' || typeof own === 'boolean')) found.push(own as JsonSchema);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches))
      for (const branch of branches)
        if (typeof branch === 'object' && branch !== null) found.push(...subSchemas(branch as JsonSchema, pick));
  }
  return found;
}
