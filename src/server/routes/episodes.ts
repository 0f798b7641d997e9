import { Hono } from 'hono';
import { unknownEpisode } from '../../episodes/errors.js';
import type { EpisodeStore } from '../../episodes/store.js';
import { stepJson } from '../../episodes/step-json.js';
import { createdEpisodeJson } from '../../episodes/created-json.js';
import { readJsonBody } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';

const JSONL_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;
/** What `c.json` sends: a plain record, which @hono/node-server writes without building a Headers object. */
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The episode API (issue #6): `POST /v1/episodes` starts one, `POST /v1/episodes/{id}/step` runs a step of parallel
 * actions, `GET /v1/episodes/{id}` is its trajectory (`?format=jsonl`: the summary line, then one line per step, then one per text turn),
 * `DELETE /v1/episodes/{id}` ends it and answers its final summary. The store's refusals travel as EpisodeError,
 * answered by the app's error handler (episodeProblem).
 */
export function episodeRoutes(episodes: EpisodeStore): Hono {
  const app = new Hono();

  app.post('/v1/episodes', async (c) => {
    const created = episodes.create(await readJsonBody(c));
    return c.body(createdEpisodeJson(created), 201, { ...JSON_HEADERS, location: `/v1/episodes/${created.id}` });
  });

  // Read-only, for the studio and dashboards: the episodes this process holds, newest first.
  app.get('/v1/episodes', (c) => {
    const text = c.req.query('limit') ?? String(DEFAULT_LIST_LIMIT);
    const limit = Number(text);
    if (!/^\d+$/.test(text) || limit < 1 || limit > MAX_LIST_LIMIT)
      throw httpProblem(400, `limit must be an integer between 1 and ${MAX_LIST_LIMIT}, got ${JSON.stringify(text)}`, {
        title: 'Invalid query parameter',
      });
    return c.json(episodes.list(limit));
  });

  app.post('/v1/episodes/:id/step', async (c) =>
    c.body(stepJson(await episodes.step(c.req.param('id'), await readJsonBody(c))), 200, JSON_HEADERS),
  );

  app.post('/v1/episodes/:id/turns', async (c) =>
    c.json(await episodes.turn(c.req.param('id'), await readJsonBody(c))),
  );

  app.get('/v1/episodes/:id', (c) => {
    const format = c.req.query('format') ?? 'json';
    if (format !== 'json' && format !== 'jsonl') {
      throw httpProblem(400, `format must be "json" or "jsonl", got ${JSON.stringify(format)}`, {
        title: 'Invalid query parameter',
      });
    }
    const trajectory = episodes.get(c.req.param('id'));
    if (!trajectory) throw unknownEpisode(c.req.param('id'), episodes.ttlMs);
    if (format === 'json') return c.json(trajectory);
    const { steps, turns, ...summary } = trajectory;
    const lines = [summary, ...steps, ...turns].map((line) => `${JSON.stringify(line)}\n`).join('');
    return c.body(lines, 200, { 'content-type': JSONL_CONTENT_TYPE });
  });

  app.delete('/v1/episodes/:id', (c) => c.json(episodes.end(c.req.param('id'))));

  return app;
}
