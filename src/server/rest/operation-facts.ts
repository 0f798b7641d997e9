/**
 * What the REST surface reads from an operation of the API document that the tool record does not keep: the media
 * types of each response, whether the request body is required or may be `null`, and each media type's schema
 * (for XML's `xml` hints). Read once per operation and cached by the catalog.
 */
import { deref, isObject, type JsonObject } from '../../library/openapi/refs.js';
import { mediaKind } from './negotiate.js';

export interface OperationFacts {
  /** Response key as the document writes it (`200`, `4XX`, `default`) → its media types, in document order. */
  responses: Map<string, string[]>;
  /** Response key → XML media type → the schema the document gives it ($refs left in place): its `xml` hints. */
  schemas: Map<string, Map<string, unknown>>;
  /** `requestBody.required: true`. */
  bodyRequired: boolean;
  /** The request body's schema admits `null`: no type, `nullable: true`, or a type list with "null". */
  bodyAdmitsNull: boolean;
}

/** An operation the document does not describe (or an API without one). */
export const NO_FACTS: OperationFacts = {
  responses: new Map(),
  schemas: new Map(),
  bodyRequired: false,
  bodyAdmitsNull: false,
};

/** Each operation's facts, by tool id; the document is kept only where an XML schema needs it. */
export interface ApiFacts {
  operations: Map<string, OperationFacts>;
  document: unknown;
}

export function apiFacts(
  document: unknown,
  operations: readonly { id: string; method: string; path: string }[],
): ApiFacts {
  const facts = new Map(operations.map((op) => [op.id, operationFacts(document, op.path, op.method)]));
  const xml = [...facts.values()].some((f) => [...f.schemas.values()].some((schemas) => schemas.size > 0));
  return { operations: facts, document: xml ? document : undefined };
}

export function operationFacts(document: unknown, path: string, method: string): OperationFacts {
  if (!isObject(document) || !isObject(document.paths)) return NO_FACTS;
  const item = deref(document, document.paths[path]);
  const operation = isObject(item) ? deref(document, item[method.toLowerCase()]) : undefined;
  if (!isObject(operation)) return NO_FACTS;
  const responses = new Map<string, string[]>();
  const schemas = new Map<string, Map<string, unknown>>();
  for (const [key, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const response = deref(document, raw);
    const content = isObject(response) && isObject(response.content) ? response.content : {};
    const normal = /^\dxx$/i.test(key) ? key.toUpperCase() : key.toLowerCase();
    responses.set(normal, Object.keys(content));
    const bySchema = new Map<string, unknown>();
    for (const [type, media] of Object.entries(content))
      if (isObject(media) && media.schema !== undefined && mediaKind(type) === 'xml') bySchema.set(type, media.schema);
    schemas.set(normal, bySchema);
  }
  const body = deref(document, operation.requestBody);
  return {
    responses,
    schemas,
    bodyRequired: isObject(body) && body.required === true,
    bodyAdmitsNull: isObject(body) && bodySchemas(document, body).some((schema) => admitsNull(document, schema)),
  };
}

/**
 * The media types documented for an answer of `status`: its own key's, else `4XX`-style, else `default`'s; undefined
 * when the operation declares no response for it.
 */
export function documentedTypes(facts: OperationFacts, status: number): { key: string; types: string[] } | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    const types = facts.responses.get(key);
    if (types !== undefined) return { key, types };
  }
  return undefined;
}

/** Whether the operation declares any 4xx answer: an explicit code, `4XX`, or `default`. */
export function declaresClientError(facts: OperationFacts): boolean {
  for (const key of facts.responses.keys()) if (/^4(\d\d|XX)$/.test(key) || key === 'default') return true;
  return false;
}

function bodySchemas(document: JsonObject, body: JsonObject): unknown[] {
  const content = isObject(body.content) ? body.content : {};
  return Object.values(content).flatMap((media) =>
    isObject(media) && media.schema !== undefined ? [deref(document, media.schema)] : [],
  );
}

function admitsNull(document: JsonObject, schema: unknown, depth = 0): boolean {
  if (schema === true) return true;
  if (!isObject(schema) || depth > 8) return false;
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.type)) return schema.type.includes('null');
  if (schema.type !== undefined) return schema.type === 'null';
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  const members = [schema.anyOf, schema.oneOf].filter(Array.isArray).flat();
  if (members.length > 0) return members.some((member) => admitsNull(document, deref(document, member), depth + 1));
  // allOf: every member must admit it.
  if (Array.isArray(schema.allOf))
    return schema.allOf.every((member) => admitsNull(document, deref(document, member), depth + 1));
  return true;
}
