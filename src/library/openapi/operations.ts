/** An OpenAPI document's operations → Tool records. */
import { makeId, uniqueId } from '../ids.js';
import type { Tool } from '../tool.js';
import type { DocumentContext } from './context.js';
import { requestShape } from './parameters.js';
import { errorResponses } from './errors.js';
import { deref, isObject, type JsonObject } from './refs.js';
import { successResponse } from './responses.js';
import { pointerBelow } from './schema.js';
import { mergeDescription, plainText, toolName } from './text.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export interface Operation {
  path: string;
  /** Lowercase, one of HTTP_METHODS. */
  method: (typeof HTTP_METHODS)[number];
  operation: JsonObject;
  pathItem: JsonObject;
}

/** Every operation of a document, in document order (paths as listed, methods in HTTP_METHODS order). */
export function listOperations(document: JsonObject): Operation[] {
  const operations: Operation[] = [];
  if (!isObject(document.paths)) return operations;
  for (const [path, item] of Object.entries(document.paths)) {
    const pathItem = deref(document, item);
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) operations.push({ path, method, operation, pathItem });
    }
  }
  return operations;
}

export interface ApiContext extends DocumentContext {
  apiId: string;
  /** The API's title, for operations that describe themselves with nothing at all. */
  title: string;
  category: string;
}

/** The key that identifies an operation across rebuilds, whatever its operationId. */
export const operationKey = (apiId: string, method: string, path: string) => `${apiId} ${method} ${path}`;

/** One operation as a tool. `taken` holds the ids given so far, so ids stay unique across a whole library. */
export function operationTool(
  api: ApiContext,
  { path, method, operation, pathItem }: Operation,
  taken: Set<string>,
): Tool {
  const operationId =
    typeof operation.operationId === 'string' && operation.operationId.trim()
      ? operation.operationId.trim()
      : undefined;
  const key = operationKey(api.apiId, method, path);
  const id = uniqueId(makeId([api.apiId, operationId ?? `${method} ${path}`], key), key, taken);
  const summary = plainText(operation.summary);
  const name = toolName(summary, operationId, method, path);
  const description =
    mergeDescription(summary, plainText(operation.description)) || fallbackDescription(api, operation, name);
  const { parameters, bindings } = requestShape(api, pathItem, operation);
  const response = successResponse(api, operation, pointerBelow(pointerBelow('#/paths', path), method));
  const errors = errorResponses(api, operation);
  return {
    id,
    name,
    description,
    category: api.category,
    parameters,
    bindings,
    ...(response.status !== undefined && response.status !== 200 ? { response_status: response.status } : {}),
    ...(response.schema !== undefined ? { response_schema: response.schema } : {}),
    examples: response.examples,
    ...(errors !== undefined ? { error_responses: errors } : {}),
    origin: {
      format: 'openapi',
      api_id: api.apiId,
      method,
      path,
      operation_id: operationId ?? null,
      server: serverUrl(api.document, pathItem, operation),
    },
  };
}

/** For an operation with neither summary nor description: its name, its API, and what its tags say. */
function fallbackDescription(api: ApiContext, operation: JsonObject, name: string): string {
  const tags = Array.isArray(operation.tags) ? operation.tags.filter((t): t is string => typeof t === 'string') : [];
  const declared = Array.isArray(api.document.tags) ? api.document.tags.filter(isObject) : [];
  const tagText = tags.map((tag) => plainText(declared.find((t) => t.name === tag)?.description)).find(Boolean);
  const lead = `${name} (${api.title}${tags.length > 0 ? `, ${tags.join(', ')}` : ''}).`;
  return tagText ? mergeDescription(lead, tagText) : lead;
}

/** The first server of the operation, its path item or the document, with variables at their defaults. */
export function serverUrl(document: JsonObject, pathItem: JsonObject, operation: JsonObject): string | null {
  for (const servers of [operation.servers, pathItem.servers, document.servers]) {
    if (!Array.isArray(servers) || !isObject(servers[0]) || typeof servers[0].url !== 'string') continue;
    const server = servers[0];
    const variables = isObject(server.variables) ? server.variables : {};
    return (server.url as string).replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
    });
  }
  return null;
}

/** Every operation of a document as tools. */
export function documentTools(api: ApiContext, taken: Set<string> = new Set()): Tool[] {
  return listOperations(api.document).map((operation) => operationTool(api, operation, taken));
}
