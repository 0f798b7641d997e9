import { Hono } from 'hono';
import { LibraryError } from '../../library/store.js';
import { callResponse } from '../call-response.js';
import type { AppContext } from '../context.js';
import { isPlainObject, readJsonBody } from '../json-body.js';
import { requestControls } from '../prefer.js';
import { requestHeader } from '../request-header.js';
import { httpProblem, problemResponse } from '../problems.js';
import { EPISODE_HEADER } from '../../episodes/header.js';
import { episodeCallResponse } from './episodes.js';

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

  app.post('/v1/tools/:id/call', async (c) => {
    const body = (await readJsonBody(c)) ?? {};
    if (!isPlainObject(body)) throw httpProblem(400, 'the request body must be a JSON object {"arguments": {...}}', { title: 'Invalid request body' });
    const extra = Object.keys(body).filter((key) => key !== 'arguments');
    if (extra.length > 0) throw httpProblem(400, `unknown member ${JSON.stringify(extra[0])} in the request body; it takes {"arguments": {...}}`, { title: 'Invalid request body' });
    const controls = requestControls(c);
    const episode = requestHeader(c, EPISODE_HEADER);
    if (episode !== undefined) return episodeCallResponse(ctx.episodes, episode, c.req.param('id'), body.arguments, controls);
    const result = await ctx.simulator.call(c.req.param('id'), body.arguments ?? {}, { controls });
    return callResponse(result);
  });

  return app;
}
