import { Hono } from 'hono';
import { LibraryError } from '../../library/store.js';
import { callResponse } from '../call-response.js';
import type { AppContext } from '../context.js';
import { requestHeader } from '../request-header.js';
import { httpProblem, problemResponse } from '../problems.js';
import { EPISODE_HEADER } from '../../episodes/header.js';
import { CALL_ROUTE, toolCall } from '../tool-call.js';

export const MAX_PAGE = 1000;

/** The library (`GET /v1/tools`, `GET /v1/tools/{id}`) and single calls (`POST /v1/tools/{id}/call`). */
export function toolRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  app.get('/v1/tools', (c) => {
    const url = new URL(c.req.url);
    const limitText = url.searchParams.get('limit');
    let limit: number | undefined;
    if (limitText !== null) {
      limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_PAGE) throw httpProblem(400, `limit must be an integer between 1 and ${MAX_PAGE}, got ${JSON.stringify(limitText)}`, { title: 'Invalid query parameter' });
    }
    try {
      return c.json(
        ctx.store.list({
          category: url.searchParams.get('category') ?? undefined,
          q: url.searchParams.get('q') ?? undefined,
          cursor: url.searchParams.get('cursor') ?? undefined,
          limit,
        }),
      );
    } catch (error) {
      if (error instanceof LibraryError) throw httpProblem(400, error.message, { title: 'Invalid query parameter' });
      throw error;
    }
  });

  app.get('/v1/tools/:id', (c) => {
    const id = c.req.param('id');
    const tool = ctx.store.get(id);
    return tool ? c.json(tool) : problemResponse(404, `no tool ${JSON.stringify(id)} in the library`, { title: 'Unknown tool' });
  });

  // Under node, callListener answers these in front of hono; this route answers app.request() and other runtimes.
  app.post(CALL_ROUTE, async (c) =>
    callResponse(await toolCall(ctx, { toolId: c.req.param('id'), body: await c.req.text(), prefer: requestHeader(c, 'prefer'), url: c.req.url, episode: requestHeader(c, EPISODE_HEADER) })),
  );

  return app;
}
