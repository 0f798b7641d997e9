/** Local `$ref`s of an OpenAPI document: JSON pointers into the document itself. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `$ref` string of a Reference Object, or undefined for anything else. */
export function refOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.$ref === 'string' ? value.$ref : undefined;
}

/** A `$ref` token as the key it names: URI-decoded where it decodes, then `~1` and `~0` unescaped. */
export function refToken(raw: string): string {
  let token: string;
  try {
    token = decodeURIComponent(raw);
  } catch {
    token = raw;
  }
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * What a local ref (`#/components/schemas/Pet`) points at, or undefined when it is external (`other.yaml#/…`),
 * malformed or dangling. Pointer tokens are URI-decoded and then JSON-pointer-unescaped (~1 → /, ~0 → ~).
 */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#' || ref === '#/') return document;
  if (!ref.startsWith('#/')) return undefined;
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    const token = refToken(raw);
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * Follows a chain of Reference Objects (a parameter, request body, response or example that is a `$ref`, maybe
 * to another `$ref`) to the object it ends at; undefined when the chain dangles, leaves the document or loops.
 */
export function deref(document: unknown, value: unknown): unknown {
  let node = value;
  const seen = new Set<string>();
  for (let ref = refOf(node); ref !== undefined; ref = refOf(node)) {
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    node = resolvePointer(document, ref);
  }
  return node;
}
