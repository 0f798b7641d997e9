import type { JsonSchema, Tool } from '../library/tool.js';
import { convert, pickJsonMediaType } from '../library/openapi/context.js';
import { deref, isObject, type JsonObject } from '../library/openapi/refs.js';
import { dialectOf } from '../library/openapi/schema.js';

/**
 * An operation's declared error responses, read from the API document the library keeps (the tool record keeps
 * only the success response): the explicit 4xx codes, and per response key (`404`, `4XX`, `default`) the JSON
 * schema of its body, or null when it is declared without one.
 */
export interface DeclaredErrors {
  codes: number[];
  schemas: Map<string, JsonSchema | null>;
}

export function declaredErrors(document: unknown, tool: Tool): DeclaredErrors | undefined {
  if (tool.origin.format !== 'openapi' || !isObject(document) || !isObject(document.paths)) return undefined;
  const item = deref(document, document.paths[tool.origin.path]);
  const operation = isObject(item) ? deref(document, item[tool.origin.method.toLowerCase()]) : undefined;
  if (!isObject(operation) || !isObject(operation.responses)) return undefined;
  const context = { document: document as JsonObject, dialect: dialectOf(document) };
  const codes: number[] = [];
  const schemas = new Map<string, JsonSchema | null>();
  for (const [key, raw] of Object.entries(operation.responses)) {
    const code = key.toUpperCase();
    const explicit = /^4\d\d$/.test(code);
    if (!explicit && code !== '4XX' && code !== 'DEFAULT') continue;
    if (explicit) codes.push(Number(code));
    const response = deref(document, raw);
    const content = isObject(response) ? response.content : undefined;
    const mediaType = pickJsonMediaType(content);
    const media = mediaType === undefined ? undefined : (content as JsonObject)[mediaType];
    const schema = isObject(media) && media.schema !== undefined ? convert(context, media.schema, 'response') : null;
    schemas.set(code === 'DEFAULT' ? 'default' : code, schema);
  }
  codes.sort((a, b) => a - b);
  return { codes, schemas };
}

/**
 * The schema an error body of `status` should satisfy: its own code's, else `4XX`'s, else `default`'s. Undefined
 * when the operation declares nothing for it; null when it declares a response without a JSON body schema.
 */
export function errorSchema(declared: DeclaredErrors, status: number): JsonSchema | null | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) if (declared.schemas.has(key)) return declared.schemas.get(key);
  return undefined;
}
