import { isPlainObject } from '../json-body.js';
import type { Operation } from './matcher.js';

/**
 * Set on requests that came through a port serving one API at its root (`serve --api-port`): its served document
 * names that root as the server. Whatever a client sends under this name is overwritten there.
 */
export const API_ROOT_HEADER = 'x-toolenv-api-root';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * An API's stored OpenAPI document as this server serves it: `servers` point here, and `paths` keep only the
 * operations the library holds, so that a client generated from it calls nothing the simulator lacks.
 * Path-item and operation `servers` are dropped: they would send clients to the real API. (Importers store
 * Swagger 2.0 documents upgraded to OpenAPI 3.)
 */
export function servedDocument(
  document: Record<string, unknown>,
  operations: readonly Operation[],
  serverUrl: string,
): Record<string, unknown> {
  const present = new Map<string, Set<string>>();
  for (const op of operations) {
    const methods = present.get(op.path) ?? new Set<string>();
    methods.add(op.method.toLowerCase());
    present.set(op.path, methods);
  }
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(isPlainObject(document.paths) ? document.paths : {})) {
    const methods = present.get(path);
    if (!methods || !isPlainObject(item)) continue;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(item)) {
      if (key === 'servers') continue;
      if (HTTP_METHODS.has(key)) {
        if (methods.has(key) && isPlainObject(value)) kept[key] = withoutServers(value);
      } else {
        kept[key] = value;
      }
    }
    paths[path] = kept;
  }
  return { ...document, servers: [{ url: serverUrl, description: 'ToolEnv simulator' }], paths };
}

function withoutServers(operation: Record<string, unknown>): Record<string, unknown> {
  if (!('servers' in operation)) return operation;
  const { servers: _servers, ...rest } = operation;
  return rest;
}
