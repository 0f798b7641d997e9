import { fetchFailure } from '../agent/fetch-failure.js';
import type { ToolSummary } from '../library/store.js';
import type { ApiRecord, Tool } from '../library/tool.js';

export type ApiSummary = Omit<ApiRecord, 'document'>;

/** What reference mapping reads of the served library. */
export interface LibraryClient {
  tool(id: string): Promise<Tool | undefined>;
  /** Every tool whose id, name or description contains `text` (case-insensitive), best name matches first. */
  find(text: string): Promise<ToolSummary[]>;
  apis(): Promise<ApiSummary[]>;
}

/** `GET /v1/tools` pages are at most this long (the route's MAX_PAGE). */
const PAGE = 1000;
/** Enough pages for the whole default library: a word as common as "get" still finds every tool. */
const MAX_PAGES = 60;

/**
 * The library a ToolEnv server serves, read through `GET /v1/tools/{id}`, `GET /v1/tools?q=` and `GET /apis`; answers
 * are kept.
 */
export function serverLibrary(server: string, apiKey?: string): LibraryClient {
  const base = server.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const get = async (path: string): Promise<Response> => {
    try {
      return await fetch(`${base}${path}`, { headers });
    } catch (error) {
      throw new Error(`cannot reach the ToolEnv server at ${base} (${fetchFailure(error)})`);
    }
  };
  const json = async <T>(response: Response, what: string): Promise<T> => {
    if (!response.ok) {
      const body = await response.text();
      const detail = /"detail"\s*:\s*"([^"]*)"/.exec(body)?.[1] ?? body.slice(0, 200);
      throw new Error(`${what} answered ${response.status}${detail ? `: ${detail}` : ''}`);
    }
    return (await response.json()) as T;
  };

  const tools = new Map<string, Promise<Tool | undefined>>();
  const finds = new Map<string, Promise<ToolSummary[]>>();
  let apiList: Promise<ApiSummary[]> | undefined;
  return {
    tool: (id) => {
      let found = tools.get(id);
      if (!found) {
        found = get(`/v1/tools/${encodeURIComponent(id)}`).then((response) =>
          response.status === 404 ? undefined : json<Tool>(response, `GET /v1/tools/${id}`),
        );
        tools.set(id, found);
      }
      return found;
    },
    find: (text) => {
      let found = finds.get(text);
      if (!found) {
        found = (async () => {
          const out: ToolSummary[] = [];
          let cursor: string | null = null;
          for (let page = 0; page < MAX_PAGES; page++) {
            const query = new URLSearchParams({ q: text, limit: String(PAGE) });
            if (cursor) query.set('cursor', cursor);
            const body: { tools: ToolSummary[]; next_cursor: string | null } = await json(
              await get(`/v1/tools?${query}`),
              'GET /v1/tools',
            );
            out.push(...body.tools);
            cursor = body.next_cursor;
            if (!cursor) break;
          }
          return out;
        })();
        finds.set(text, found);
      }
      return found;
    },
    apis: () =>
      (apiList ??= get('/apis')
        .then((response) => json<{ apis: ApiSummary[] }>(response, 'GET /apis'))
        .then((body) => body.apis)),
  };
}
