import { apiKeySlots, type ApiKeySlot } from './credentials.js';

/** What forwarding needs of an API document: where its API keys go, and each operation's request content type. */
export interface ApiInfo {
  keys: ApiKeySlot[];
  /**
   * `METHOD path` (method lower-case, path as the document keys it) → the first content type its request body declares.
   */
  requestTypes: Map<string, string>;
}

/** Read once per API from its document (a parsed document can be megabytes: only this much of it is kept). */
export function apiInfo(document: unknown): ApiInfo {
  const requestTypes = new Map<string, string>();
  const paths = (document as { paths?: unknown } | undefined)?.paths;
  if (typeof paths === 'object' && paths !== null) {
    for (const [path, item] of Object.entries(paths)) {
      if (typeof item !== 'object' || item === null) continue;
      for (const [method, operation] of Object.entries(item)) {
        const content = (operation as { requestBody?: { content?: unknown } } | null)?.requestBody?.content;
        const first = typeof content === 'object' && content !== null ? Object.keys(content)[0] : undefined;
        if (first !== undefined) requestTypes.set(`${method.toLowerCase()} ${path}`, first.toLowerCase());
      }
    }
  }
  return { keys: apiKeySlots(document), requestTypes };
}
