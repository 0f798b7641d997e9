/**
 * A document cut down to some of its operations: what the library serves at `/apis/{api_id}/openapi.json` when
 * it simulates only those. Components stay only when something kept still refers to them, so a 47 MB cloud
 * document stored for 1,600 of its operations does not carry the other 30,000 operations' schemas along.
 */
import { HTTP_METHODS } from './operations.js';
import { isObject, type JsonObject } from './refs.js';

const METHODS = new Set<string>(HTTP_METHODS);

/** `keep` holds `method path` pairs (lowercase method). */
export function pruneDocument(document: JsonObject, keep: Set<string>): JsonObject {
  const paths: JsonObject = {};
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue;
    const kept = Object.entries(item).filter(([key]) => !METHODS.has(key) || keep.has(`${key} ${path}`));
    if (
      kept.some(([key]) => METHODS.has(key)) ||
      (typeof item.$ref === 'string' && [...keep].some((k) => k.endsWith(` ${path}`)))
    ) {
      paths[path] = Object.fromEntries(kept);
    }
  }
  const { webhooks: _webhooks, components, ...rest } = document;
  const pruned: JsonObject = { ...rest, paths };
  if (isObject(components)) pruned.components = reachableComponents(document, components, paths);
  return pruned;
}

/** The components that the kept paths refer to, directly or through other components; security schemes always. */
function reachableComponents(document: JsonObject, components: JsonObject, paths: JsonObject): JsonObject {
  const kept: Record<string, JsonObject> = {};
  if (isObject(components.securitySchemes)) kept.securitySchemes = components.securitySchemes;
  const pending: unknown[] = [paths];
  const seen = new Set<string>();
  while (pending.length > 0) {
    for (const ref of collectRefs(pending.pop())) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      const match = /^#\/components\/([^/]+)\/([^/]+)/.exec(ref);
      if (match) {
        const [, section, rawName] = match as unknown as [string, string, string];
        const name = decodeToken(rawName);
        const source = components[section];
        if (!isObject(source) || !Object.hasOwn(source, name)) continue;
        (kept[section] ??= {})[name] = source[name];
        pending.push(source[name]);
      } else if (ref.startsWith('#/paths/')) {
        const path = decodeToken(ref.slice('#/paths/'.length).split('/')[0]!);
        const item = isObject(document.paths) ? document.paths[path] : undefined;
        if (item !== undefined && paths[path] === undefined) {
          paths[path] = item;
          pending.push(item);
        }
      }
    }
  }
  const { securitySchemes: _schemes, ...others } = components;
  return Object.fromEntries(
    [...Object.keys(others), 'securitySchemes']
      .filter((section) => kept[section])
      .map((section) => [section, kept[section]]),
  );
}

function decodeToken(token: string): string {
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // a literal '%' that is no escape stays as it is
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Every `$ref` string anywhere under a value (iteratively: documents nest deeper than the call stack allows). */
function collectRefs(root: unknown): Set<string> {
  const refs = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') refs.add(value);
        else if (typeof value === 'object' && value !== null) stack.push(value);
      }
    }
  }
  return refs;
}
