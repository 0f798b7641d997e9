import { Hono } from 'hono';
import { EpisodeError, invalidRequest } from '../../episodes/errors.js';
import { isRecord } from '../../episodes/resource-body.js';
import { Checker } from '../../episodes/validate.js';
import type { AppContext } from '../context.js';
import { readJsonBody } from '../json-body.js';
import { serverOpenApi } from '../openapi.js';
import type { OpenEnv } from '../openenv/env.js';
import { OPENENV_METADATA, OPENENV_SCHEMAS } from '../openenv/schema.js';
import { OPENENV_WS_PATH } from '../openenv/upgrade.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';

export const OPENENV_PREFIX = '/openenv';

/** What `POST /openenv/step` takes: the action, its episode, and OpenEnv's `timeout_s` and `request_id` (taken, ignored). */
const STEP_MEMBERS = ['action', 'episode_id', 'timeout_s', 'request_id'];

/**
 * OpenEnv's HTTP routes under `/openenv` (its WebSocket sessions are upgraded beside the app: openenv/upgrade.ts).
 * OpenEnv's own HTTP reset and step are stateless; here a reset starts an episode and a step continues the one
 * its `episode_id` names (in the body or, so that `serve --workers` routes it to its worker, the query).
 */
export function openEnvRoutes(ctx: AppContext, env: OpenEnv): Hono {
  const app = new Hono().basePath(OPENENV_PREFIX);

  app.get('/health', (c) => c.json({ status: 'healthy' }));
  app.get('/metadata', (c) => c.json(OPENENV_METADATA));
  app.get('/schema', (c) => c.json(OPENENV_SCHEMAS));
  // What `openenv validate --url <origin>/openenv` reads: the routes below as paths of their own.
  app.get('/openapi.json', (c) =>
    c.json(openEnvDocument(serverOpenApi(new URL(c.req.url).origin, { auth: ctx.auth, maxBatch: ctx.maxBatch }))),
  );

  app.post('/reset', async (c) => {
    const body = await readJsonBody(c);
    return c.json(await unprocessable(async () => env.start(await env.config(body))));
  });

  app.post('/step', async (c) => {
    const body = await readJsonBody(c);
    return c.json(
      await unprocessable(() => {
        const { id, action } = stepRequest(body, c.req.query('episode_id'));
        return env.step(id, action, '/action');
      }),
    );
  });

  app.get('/state', (c) => {
    const id = c.req.query('episode_id');
    if (!id)
      throw httpProblem(422, 'GET /openenv/state needs ?episode_id=: the episode POST /openenv/reset started', {
        title: 'Invalid episode request',
      });
    return c.json(env.state(id));
  });

  app.get('/ws', () =>
    problemResponse(426, `${OPENENV_WS_PATH} is OpenEnv's WebSocket session: connect with Upgrade: websocket`, {
      title: 'Upgrade required',
      headers: { upgrade: 'websocket', connection: 'Upgrade' },
    }),
  );

  return app;
}

/** `POST /openenv/step`'s body → the episode and the action. Throws EpisodeError 400. */
function stepRequest(body: unknown, queried: string | undefined): { id: string; action: unknown } {
  if (!isRecord(body))
    throw invalidRequest('step', [{ path: '', message: 'must be a JSON object {"episode_id", "action": {"text"}}' }]);
  const check = new Checker();
  check.members(body, '', STEP_MEMBERS);
  const given = body.episode_id;
  if (given !== undefined && typeof given !== 'string')
    check.add('/episode_id', 'must be a string: the episode POST /openenv/reset started');
  else if (given !== undefined && queried !== undefined && given !== queried)
    check.add('/episode_id', `names another episode than ?episode_id= (${JSON.stringify(queried)})`);
  else if (given === undefined && queried === undefined)
    check.add('/episode_id', 'is required: the episode POST /openenv/reset started');
  if (body.action === undefined) check.add('/action', 'is required: {"text": "<the model message>"}');
  if (check.errors.length > 0) throw invalidRequest('step', check.errors);
  return { id: (given as string | undefined) ?? queried!, action: body.action };
}

/** OpenEnv's servers (FastAPI) answer a request that fails validation 422, where ToolEnv's own routes say 400. */
async function unprocessable<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof EpisodeError) || error.status !== 400) throw error;
    throw httpProblem(422, error.message, {
      title: error.title,
      extra: error.errors ? { errors: error.errors } : undefined,
    });
  }
}

/** The server's own document cut to the routes under /openenv, their paths relative to it. */
function openEnvDocument(document: Record<string, unknown>): Record<string, unknown> {
  const paths = Object.entries(document.paths as Record<string, unknown>).flatMap(([path, item]) =>
    path.startsWith(`${OPENENV_PREFIX}/`) ? [[path.slice(OPENENV_PREFIX.length), item]] : [],
  );
  const [server] = document.servers as { url: string }[];
  return {
    ...document,
    servers: [{ url: `${server!.url}${OPENENV_PREFIX}` }],
    tags: [{ name: 'OpenEnv' }],
    paths: Object.fromEntries(paths),
  };
}
