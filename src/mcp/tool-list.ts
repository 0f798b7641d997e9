import type { ListToolsResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { LibraryError, type LibraryStore } from '../library/store.js';
import type { Tool } from '../library/tool.js';
import { INVALID_PARAMS, JsonRpcError } from './jsonrpc.js';
import { CALL_TOOL, SEARCH_TOOL, callTool, searchTool } from './meta-tools.js';
import type { Listing } from './session-params.js';

/** Tools per `tools/list` page; clients follow `nextCursor` for the rest. */
export const LIST_PAGE_SIZE = 100;

/**
 * A library tool as a native MCP tool: its id is the name (ids are valid MCP names), its parameter schema the input
 * schema.
 */
export function nativeTool(tool: Tool): McpTool {
  const method = tool.origin.format === 'openapi' ? tool.origin.method.toLowerCase() : undefined;
  return {
    name: tool.id,
    title: tool.name,
    description: tool.description,
    inputSchema: inputSchema(tool),
    annotations: {
      title: tool.name,
      // Simulated: nothing outside ToolEnv is touched. The HTTP method says what the real API would do.
      openWorldHint: false,
      ...(method === undefined
        ? {}
        : {
            readOnlyHint: method === 'get' || method === 'head',
            destructiveHint: method === 'delete',
            idempotentHint: method !== 'post' && method !== 'patch',
          }),
    },
  };
}

/**
 * The parameter schema as MCP's `inputSchema`. The SDK's client rejects a whole `tools/list` page when a top-level
 * property schema is not an object, so the boolean schemas JSON Schema allows there become their object forms.
 */
function inputSchema(tool: Tool): McpTool['inputSchema'] {
  const { properties, ...rest } = tool.parameters;
  const objects = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      schema === true ? {} : schema === false ? { not: {} } : withoutHeaderAnnotations(schema),
    ]),
  );
  return { ...rest, properties: objects };
}

/**
 * A property schema without 2026-07-28's `x-mcp-header` annotations, down its `properties` chains, where they count:
 * an imported MCP tool may carry one, which would oblige ToolEnv to check `Mcp-Param-*` headers, and clients drop a
 * tool whose annotation they find malformed.
 */
function withoutHeaderAnnotations(schema: object): object {
  const { 'x-mcp-header': _annotation, properties, ...rest } = schema as Record<string, unknown>;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
    return properties === undefined ? rest : { ...rest, properties };
  const subs = Object.entries(properties).map(([name, sub]) => [
    name,
    sub !== null && typeof sub === 'object' && !Array.isArray(sub) ? withoutHeaderAnnotations(sub) : sub,
  ]);
  return { ...rest, properties: Object.fromEntries(subs) };
}

/**
 * One page of a listing's `tools/list`. `workingSet` is read only in working-set mode. Meta tool names win over a
 * library tool of the same id, which is then left out so that names stay unique. The order is the same on every
 * request while the set is unchanged (ids as given, a category by library order, a working set by arrival), which
 * 2026-07-28 asks of a server.
 */
export function listPage(
  listing: Listing,
  cursor: string | undefined,
  store: LibraryStore,
  workingSet: () => readonly string[],
): ListToolsResult {
  switch (listing.kind) {
    case 'meta':
      if (cursor !== undefined) throw badCursor(cursor);
      return { tools: [searchTool, callTool] };
    case 'tools':
      return idPage(listing.ids, cursor, store, []);
    case 'working-set':
      return idPage(
        workingSet().filter((id) => id !== SEARCH_TOOL),
        cursor,
        store,
        [searchTool],
      );
    case 'category': {
      try {
        const page = store.list({ category: listing.category, cursor, limit: LIST_PAGE_SIZE });
        const tools = page.tools
          .map((summary) => store.get(summary.id))
          .filter((tool): tool is Tool => tool !== undefined);
        return { tools: tools.map(nativeTool), ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }) };
      } catch (error) {
        if (error instanceof LibraryError) throw badCursor(cursor ?? '');
        throw error;
      }
    }
  }
}

/** Whether a session in this listing offers a library tool under this name (meta tools are handled before). */
export function offers(
  listing: Listing,
  name: string,
  store: LibraryStore,
  workingSet: () => readonly string[],
): boolean {
  switch (listing.kind) {
    case 'meta':
      return false;
    case 'tools':
      return listing.ids.includes(name);
    case 'working-set':
      return workingSet().includes(name);
    case 'category':
      return store.get(name)?.category === listing.category;
  }
}

/** The meta tools a listing offers, by name. */
export function metaTools(listing: Listing): readonly string[] {
  return listing.kind === 'meta' ? [SEARCH_TOOL, CALL_TOOL] : listing.kind === 'working-set' ? [SEARCH_TOOL] : [];
}

/** Pages of an id list: `head` (the meta tools) first, then the ids; the cursor is the offset into the ids. */
function idPage(
  ids: readonly string[],
  cursor: string | undefined,
  store: LibraryStore,
  head: McpTool[],
): ListToolsResult {
  let offset = 0;
  if (cursor !== undefined) {
    offset = Number(cursor);
    if (!/^\d+$/.test(cursor) || offset > ids.length) throw badCursor(cursor);
  }
  const end = Math.min(ids.length, offset + LIST_PAGE_SIZE);
  const tools = ids
    .slice(offset, end)
    .map((id) => store.get(id))
    .filter((tool): tool is Tool => tool !== undefined);
  return {
    tools: [...(offset === 0 ? head : []), ...tools.map(nativeTool)],
    ...(end < ids.length ? { nextCursor: String(end) } : {}),
  };
}

function badCursor(cursor: string): JsonRpcError {
  return new JsonRpcError(
    INVALID_PARAMS,
    `cursor ${JSON.stringify(cursor)} is not one this server handed out; list again without a cursor`,
  );
}
