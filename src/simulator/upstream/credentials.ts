/**
 * The caller's own credentials for the real API, as a call request carried them. ToolEnv's key is never among them:
 * `x-toolenv-*` headers are not offered, nor Authorization when it carried ToolEnv's key.
 */
export interface CallerCredentials {
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** A query parameter of the request target (an API key sent as `?api_key=…`). */
  query(name: string): string | undefined;
}

/**
 * Credentials read from a request. `authorizationIsKey`: whether the server has a key and it came as `Authorization:
 * Bearer`, so that header is ToolEnv's; with the key in `x-toolenv-key` (or no key), Authorization is the API's own.
 * Asked only when Authorization is read: a simulated call never pays for it.
 */
export function callerCredentials(
  header: (name: string) => string | undefined,
  query: (name: string) => string | undefined,
  authorizationIsKey: () => boolean,
): CallerCredentials {
  return {
    header: (name) =>
      name.startsWith('x-toolenv-') || (name === 'authorization' && authorizationIsKey()) ? undefined : header(name),
    query,
  };
}

/** Where an API document's `apiKey` security schemes carry the key. */
export interface ApiKeySlot {
  in: 'header' | 'query';
  name: string;
}

/** The `apiKey` security schemes of an API document (the library keeps OpenAPI 3: Swagger 2 is converted on import). */
export function apiKeySlots(document: unknown): ApiKeySlot[] {
  const schemes = (document as { components?: { securitySchemes?: unknown } } | undefined)?.components?.securitySchemes;
  if (typeof schemes !== 'object' || schemes === null) return [];
  const slots: ApiKeySlot[] = [];
  for (const scheme of Object.values(schemes)) {
    const { type, in: where, name } = (scheme ?? {}) as { type?: unknown; in?: unknown; name?: unknown };
    if (type === 'apiKey' && (where === 'header' || where === 'query') && typeof name === 'string' && name !== '')
      slots.push({ in: where, name });
  }
  return slots;
}

/**
 * What is forwarded: Authorization (bearer, basic, OAuth tokens) and the API-key headers and query parameters the
 * document declares.
 */
export function forwardedCredentials(
  credentials: CallerCredentials | undefined,
  slots: readonly ApiKeySlot[],
): { headers: Record<string, string>; query: [string, string][] } {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  if (!credentials) return { headers, query };
  const authorization = credentials.header('authorization');
  if (authorization !== undefined) headers.authorization = authorization;
  for (const slot of slots) {
    if (slot.in === 'header') {
      const value = credentials.header(slot.name.toLowerCase());
      if (value !== undefined) headers[slot.name.toLowerCase()] = value;
    } else {
      const value = credentials.query(slot.name) ?? credentials.header(slot.name.toLowerCase());
      if (value !== undefined) query.push([slot.name, value]);
    }
  }
  return { headers, query };
}
