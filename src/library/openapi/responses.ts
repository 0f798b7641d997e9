/** An operation's success response: its status, the schema of its JSON body, and the examples the document gives. */
import type { JsonSchema, ToolExample } from '../tool.js';
import { convert, isJsonMediaType, pickJsonMediaType, type DocumentContext } from './context.js';
import { deref, isObject, refOf, resolvePointer, type JsonObject } from './refs.js';
import { pointerBelow } from './schema.js';

/** Examples kept per tool, and the largest (as JSON text) worth keeping: the simulator replays them whole. */
export const MAX_EXAMPLES = 3;
export const MAX_EXAMPLE_CHARS = 32_000;

export interface SuccessResponse {
  /** The first 2xx code; undefined when the operation declares none (a `default` response stands in as 200). */
  status?: number;
  schema?: JsonSchema;
  examples: ToolExample[];
}

/** The success response's code: the lowest explicit 2xx, else `2XX`, else `default` when no 2xx is declared. */
export function successCode(responses: unknown): string | undefined {
  if (!isObject(responses)) return undefined;
  const codes = Object.keys(responses);
  const exact = codes.filter((code) => /^2\d\d$/.test(code)).sort();
  return (
    exact[0] ??
    codes.find((code) => code.toUpperCase() === '2XX') ??
    (codes.includes('default') ? 'default' : undefined)
  );
}

/** `at`: the operation's JSON pointer in the document (`#/paths/~1pets/get`). */
export function successResponse(context: DocumentContext, operation: JsonObject, at: string): SuccessResponse {
  const code = successCode(operation.responses);
  if (code === undefined) return { examples: [] };
  const status = /^\d+$/.test(code) ? Number(code) : code === 'default' ? undefined : 200;
  const declared = (operation.responses as JsonObject)[code];
  const response = deref(context.document, declared);
  if (!isObject(response) || !isObject(response.content)) return { status, examples: [] };
  const content = response.content;
  const mediaType = pickJsonMediaType(content);
  const media = mediaType === undefined ? undefined : content[mediaType];
  const raw = isObject(media) ? media.schema : undefined;
  const pointer = mediaType === undefined ? undefined : schemaPointer(context, declared, at, code, mediaType);
  const schema = raw === undefined ? undefined : convert(context, raw, 'response', pointer);

  const bodies: { name?: string; body: unknown }[] = [];
  // Converted Swagger 2.0 documents keep the schema under `*/*` and the examples under application/json.
  const jsonMedia = Object.entries(content).filter(([type, value]) => isJsonMediaType(type) && isObject(value));
  for (const [, value] of jsonMedia) bodies.push(...mediaExamples(context, value as JsonObject));
  // From the document, not the converted schema, which keeps only small examples.
  const rawSchema = deref(context.document, raw);
  if (isObject(rawSchema)) {
    if (rawSchema.example !== undefined) bodies.push({ body: rawSchema.example });
    if (Array.isArray(rawSchema.examples)) for (const body of rawSchema.examples) bodies.push({ body });
  }
  const examples: ToolExample[] = [];
  const seen = new Set<string>();
  const stringBody =
    schema !== undefined &&
    typeof schema !== 'boolean' &&
    (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string')));
  for (const { name, body: raw } of bodies) {
    const body = stringBody ? raw : decodeJsonText(raw);
    const text = JSON.stringify(body);
    if (text === undefined || text.length > MAX_EXAMPLE_CHARS || seen.has(text)) continue;
    seen.add(text);
    examples.push({ ...(name ? { name } : {}), status: status ?? 200, body });
    if (examples.length === MAX_EXAMPLES) break;
  }
  return { status, ...(schema === undefined ? {} : { schema }), examples };
}

/** Where the response's schema sits: under the operation, or under the one response object its `$ref` names. */
function schemaPointer(
  context: DocumentContext,
  declared: unknown,
  at: string,
  code: string,
  mediaType: string,
): string | undefined {
  const ref = refOf(declared);
  if (ref !== undefined && refOf(resolvePointer(context.document, ref)) !== undefined) return undefined;
  const response = ref ?? pointerBelow(pointerBelow(at, 'responses'), code);
  return pointerBelow(pointerBelow(pointerBelow(response, 'content'), mediaType), 'schema');
}

/** A JSON body's example written as JSON text (as documents converted from Postman do) is the value that text holds. */
function decodeJsonText(body: unknown): unknown {
  if (typeof body !== 'string' || !/^\s*[{[]/.test(body)) return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

function mediaExamples(context: DocumentContext, media: JsonObject): { name?: string; body: unknown }[] {
  const found: { name?: string; body: unknown }[] = [];
  if (media.example !== undefined) found.push({ body: media.example });
  if (isObject(media.examples)) {
    for (const [name, example] of Object.entries(media.examples)) {
      const resolved = deref(context.document, example);
      if (isObject(resolved) && resolved.value !== undefined) found.push({ name, body: resolved.value });
    }
  }
  return found;
}

/**
 * Whether the success response has a JSON schema and whether it has examples, read without converting
 * anything: the default build ranks all 125,205 operations on these before converting the ones it keeps.
 */
export function responseFeatures(document: JsonObject, operation: JsonObject): { schema: boolean; examples: boolean } {
  const code = successCode(operation.responses);
  const response = code === undefined ? undefined : deref(document, (operation.responses as JsonObject)[code]);
  if (!isObject(response) || !isObject(response.content)) return { schema: false, examples: false };
  const content = response.content;
  const mediaType = pickJsonMediaType(content);
  const media = mediaType === undefined ? undefined : content[mediaType];
  const schema = isObject(media) ? deref(document, media.schema) : undefined;
  let examples = isObject(schema) && (schema.example !== undefined || Array.isArray(schema.examples));
  for (const [type, value] of Object.entries(content)) {
    if (
      isJsonMediaType(type) &&
      isObject(value) &&
      (value.example !== undefined || (isObject(value.examples) && Object.keys(value.examples).length > 0))
    )
      examples = true;
  }
  return { schema: isObject(schema) || typeof schema === 'boolean', examples };
}
