import { Hono } from 'hono';
import { decodeCursor, LibraryError, type LibraryStore, type ToolSummary } from '../../library/store.js';
import { rankSubstringMatches } from '../../retrieval/substring-rank.js';
import { callResponse } from '../call-response.js';
import type { AppContext } from '../context.js';
import { requestCredentials } from '../credentials.js';
import { requestHeader } from '../request-header.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { EPISODE_HEADER } from '../../episodes/header.js';
import { CALL_ROUTE, toolCall } from '../tool-call.js';
import { CONTROLS, EPISODE_HEADER_PARAM, json, PROBLEMS, ref, SIMULATED, type Operations } from '../openapi-parts.js';

export const MAX_PAGE = 1000;

/**
 * A page of the tools whose id, name or description contains `q`, best matches first (rankSubstringMatches): the
 * whole match set is read and ranked, then cut at the cursor's offset.
 */
function rankedPage(
  store: LibraryStore,
  query: { q: string; category?: string; cursor?: string; limit?: number },
): { tools: ToolSummary[]; next_cursor: string | null } {
  const limit = query.limit ?? 50;
  // Ranked pages continue at an offset into the ranking (which is recomputed: it is deterministic for a library).
  const offset = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
  const matches: ToolSummary[] = [];
  let after: string | undefined;
  do {
    const page = store.list({ q: query.q, category: query.category, cursor: after, limit: MAX_PAGE });
    matches.push(...page.tools);
    after = page.next_cursor ?? undefined;
  } while (after !== undefined);
  const tools = rankSubstringMatches(matches, query.q).slice(offset, offset + limit);
  const end = offset + tools.length;
  return { tools, next_cursor: end < matches.length ? String(end) : null };
}

/** The library (`GET /v1/tools`, `GET /v1/tools/{id}`) and single calls (`POST /v1/tools/{id}/call`). */
export function toolRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  app.get('/v1/tools', (c) => {
    const url = new URL(c.req.url);
    const limitText = url.searchParams.get('limit');
    let limit: number | undefined;
    if (limitText !== null) {
      limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_PAGE)
        throw httpProblem(400, `limit must be an integer between 1 and ${MAX_PAGE}, got ${JSON.stringify(limitText)}`, {
          title: 'Invalid query parameter',
        });
    }
    const category = url.searchParams.get('category') ?? undefined;
    const q = url.searchParams.get('q') ?? undefined;
    // An empty `cursor=` is the first page, as an absent one (clients that template the query send it so).
    const cursor = url.searchParams.get('cursor') || undefined;
    try {
      return c.json(
        q ? rankedPage(ctx.store, { q, category, cursor, limit }) : ctx.store.list({ category, cursor, limit }),
      );
    } catch (error) {
      if (error instanceof LibraryError) throw httpProblem(400, error.message, { title: 'Invalid query parameter' });
      throw error;
    }
  });

  app.get('/v1/tools/:id', (c) => {
    const id = c.req.param('id');
    const tool = ctx.store.get(id);
    return tool
      ? c.json(tool)
      : problemResponse(404, `no tool ${JSON.stringify(id)} in the library`, { title: 'Unknown tool' });
  });

  // Under node, callListener answers these in front of hono; this route answers app.request() and other runtimes.
  app.post(CALL_ROUTE, async (c) =>
    callResponse(
      await toolCall(ctx, {
        toolId: c.req.param('id'),
        body: await c.req.text(),
        prefer: requestHeader(c, 'prefer'),
        url: c.req.url,
        episode: requestHeader(c, EPISODE_HEADER),
        credentials: requestCredentials(ctx, c),
      }),
    ),
  );

  return app;
}

/** The operations of toolRoutes. */
export const toolOperations: Operations = {
  '/v1/tools': {
    get: {
      operationId: 'listTools',
      tags: ['Tools'],
      summary: 'A page of tool summaries: in library order, or best match first with q',
      parameters: [
        { name: 'category', in: 'query', description: 'Only tools of this category.', schema: { type: 'string' } },
        {
          name: 'q',
          in: 'query',
          description:
            'Case-insensitive substring of id, name or description; matches come best first (the name is the text, ' +
            'starts with it or holds it as words, then the id, then the description; shorter names first).',
          schema: { type: 'string' },
        },
        {
          name: 'limit',
          in: 'query',
          description: 'Page size.',
          schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
        },
        {
          name: 'cursor',
          in: 'query',
          description:
            'The `next_cursor` of the previous page with the same `q` and `category`; absent or empty: the first ' +
            "page. Another listing's cursor reads as a page of this one.",
          schema: { type: 'string', pattern: '^[0-9]{0,15}$' },
        },
      ],
      responses: { '200': json('A page.', ref('ToolPage')), '400': PROBLEMS['400'], '401': PROBLEMS['401'] },
    },
  },
  '/v1/tools/{id}': {
    get: {
      operationId: 'getTool',
      tags: ['Tools'],
      summary: 'The full tool record',
      parameters: [{ $ref: '#/components/parameters/ToolId' }],
      responses: { '200': json('The record.', ref('Tool')), '401': PROBLEMS['401'], '404': PROBLEMS['404'] },
    },
  },
  '/v1/tools/{id}/call': {
    post: {
      operationId: 'callTool',
      tags: ['Tools'],
      summary: 'Call a tool: the answer is the simulated tool’s own status and body',
      parameters: [{ $ref: '#/components/parameters/ToolId' }, ...CONTROLS, EPISODE_HEADER_PARAM],
      requestBody: { required: false, content: { 'application/json': { schema: ref('CallRequest') } } },
      responses: { default: SIMULATED, ...PROBLEMS },
    },
  },
};
