/**
 * An operation's declared error responses, kept compact in the tool record (`error_responses`) so that the REST
 * surface can answer an error in the API's own shape without parsing the API document inside a request.
 */
import type { ErrorResponses, JsonSchema } from '../tool.js';
import { convert, pickJsonMediaType, type DocumentContext } from './context.js';
import { deref, isObject, type JsonObject } from './refs.js';

/** Error schemas are filled in, never shown to an agent: shallower and smaller than a tool's own schemas. */
const ERROR_SCHEMA_LIMITS = { maxDepth: 6, maxNodes: 80 };
/**
 * A converted error schema longer than this (as JSON) is not kept: its response stays declared, without a body schema.
 */
export const MAX_ERROR_SCHEMA_CHARS = 8000;
/** Keywords that only annotate: dropped, since the record holds one copy of an API's error schema per operation. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

/**
 * Per declared error response key (`404`, `4XX`, `5XX`, `default`): the JSON schema of its JSON body, or null when it
 * has none (or one too large to keep). Undefined when nothing is declared.
 */
export function errorResponses(context: DocumentContext, operation: JsonObject): ErrorResponses | undefined {
  const responses = operation.responses;
  if (!isObject(responses)) return undefined;
  const declared: ErrorResponses = {};
  for (const [key, raw] of Object.entries(responses)) {
    const code = /^[45]xx$/i.test(key) ? key.toUpperCase() : key.toLowerCase();
    // `default` describes every answer not declared by code: errors too, even where it is also the success response.
    if (!/^[45](\d\d|XX)$/.test(code) && code !== 'default') continue;
    const response = deref(context.document, raw);
    const content = isObject(response) ? response.content : undefined;
    const mediaType = pickJsonMediaType(content);
    const media = mediaType === undefined ? undefined : (content as JsonObject)[mediaType];
    let schema: JsonSchema | null = null;
    if (isObject(media) && media.schema !== undefined) {
      const converted = withoutAnnotations(
        convert({ ...context, limits: ERROR_SCHEMA_LIMITS, stats: undefined }, media.schema, 'response'),
      );
      if (JSON.stringify(converted).length <= MAX_ERROR_SCHEMA_CHARS) schema = converted;
    }
    declared[code] = schema;
  }
  return Object.keys(declared).length > 0 ? declared : undefined;
}

/** The operation of a tool in its API document, read again: for libraries built before tools kept `error_responses`. */
export function documentErrorResponses(
  document: unknown,
  path: string,
  method: string,
  dialect: DocumentContext['dialect'],
): ErrorResponses | undefined {
  if (!isObject(document) || !isObject(document.paths)) return undefined;
  const item = deref(document, document.paths[path]);
  const operation = isObject(item) ? deref(document, item[method.toLowerCase()]) : undefined;
  return isObject(operation) ? errorResponses({ document, dialect }, operation) : undefined;
}

/**
 * The schema an error body of `status` should satisfy: its own code's, else `4XX`'s or `5XX`'s, else `default`'s.
 * Undefined when the operation declares nothing for it; null when it declares a response without a JSON body schema.
 */
export function errorSchema(declared: ErrorResponses, status: number): JsonSchema | null | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default'])
    if (Object.hasOwn(declared, key)) return declared[key];
  return undefined;
}

/** The explicit error statuses declared, lowest first. */
export function declaredStatuses(declared: ErrorResponses): number[] {
  return Object.keys(declared)
    .filter((key) => /^\d+$/.test(key))
    .map(Number)
    .sort((a, b) => a - b);
}

function withoutAnnotations(schema: JsonSchema): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (SCHEMA_MAPS.has(keyword) && isObject(value))
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, subSchema(sub)]));
    else if (Array.isArray(value) && keyword !== 'enum' && keyword !== 'required' && keyword !== 'type')
      out[keyword] = value.map(subSchema);
    else if (isObject(value) && keyword !== 'const' && keyword !== 'default') out[keyword] = withoutAnnotations(value);
    else out[keyword] = value;
  }
  return out;
}

const subSchema = (value: unknown): unknown =>
  isObject(value) || typeof value === 'boolean' ? withoutAnnotations(value as JsonSchema) : value;
