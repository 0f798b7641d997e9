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
import { json, PROBLEMS, problemDoc, ref, type Operations } from '../openapi-parts.js';

export const OPENENV_PREFIX = '/openenv';

/**
 * What `POST /openenv/step` takes: the action, its episode, and OpenEnv's `timeout_s` and `request_id` (taken,
 * ignored).
 */
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
    c.json(
      openEnvDocument(
        serverOpenApi(new URL(c.req.url).origin, [openEnvOperations(env.needsTask)], {
          auth: ctx.auth,
          maxBatch: ctx.maxBatch,
        }),
      ),
    ),
  );

  app.post('/reset', async (c) => {
    const body = await readJsonBody(c);
    return c.json(await unprocessable(async () => env.start(await env.config(body))));
  });

  app.post('/step', async (c) => {
    const body = await readJsonBody(c);
    return c.json(
      await unprocessable(() => {
        const queried = c.req.query('episode_id');
        const { id, action } = stepRequest(body, queried);
        if (queried !== undefined && id !== queried) twoEpisodes(env, id, queried);
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

/** The operations of openEnvRoutes. */
/** `needsTask`: the server has no default tasks, so a reset must name its task (and the document says so). */
export const openEnvOperations = (needsTask: boolean): Operations => ({
  '/openenv/health': {
    get: {
      operationId: 'openEnvHealth',
      tags: ['OpenEnv'],
      summary: "OpenEnv's health check",
      responses: {
        '200': json('Up.', { type: 'object', required: ['status'], properties: { status: { const: 'healthy' } } }),
        '401': PROBLEMS['401'],
      },
    },
  },
  '/openenv/metadata': {
    get: {
      operationId: 'openEnvMetadata',
      tags: ['OpenEnv'],
      summary: "OpenEnv's environment metadata",
      responses: { '200': json('Name, description, version.', ref('OpenEnvMetadata')), '401': PROBLEMS['401'] },
    },
  },
  '/openenv/schema': {
    get: {
      operationId: 'openEnvSchema',
      tags: ['OpenEnv'],
      summary: 'JSON Schemas of the action a step takes, and of the observation and the state',
      responses: {
        '200': json('The schemas.', {
          type: 'object',
          required: ['action', 'observation', 'state'],
          properties: { action: { type: 'object' }, observation: { type: 'object' }, state: { type: 'object' } },
        }),
        '401': PROBLEMS['401'],
      },
    },
  },
  '/openenv/openapi.json': {
    get: {
      operationId: 'openEnvOpenApi',
      tags: ['OpenEnv'],
      summary: 'This document cut to the /openenv routes, their paths relative to `{origin}/openenv`',
      responses: { '200': json('OpenAPI 3.1 document.', { type: 'object' }), '401': PROBLEMS['401'] },
    },
  },
  '/openenv/reset': {
    post: {
      operationId: 'openEnvReset',
      tags: ['OpenEnv'],
      summary: 'Start an episode of a task, as POST /v1/episodes does; the observation carries its `episode_id`',
      description:
        '`task` is required unless the server has default tasks (`tasks[seed mod n]`, else in turn). `episode_id` is ' +
        'accepted and not honored: the server names episodes. The episode lives until its turns end it and it is ' +
        'deleted (DELETE /v1/episodes/{id}) or it expires.',
      requestBody: {
        required: needsTask,
        content: {
          'application/json': {
            schema: needsTask
              ? { allOf: [ref('OpenEnvResetRequest')], required: ['task'] }
              : ref('OpenEnvResetRequest'),
          },
        },
      },
      responses: {
        '200': json("The first observation: the system prompt and the task's query.", ref('OpenEnvResult')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownTools' },
        '413': PROBLEMS['413'],
        '422': problemDoc('An invalid reset (with `errors`).'),
        '429': { $ref: '#/components/responses/TooManyEpisodes' },
      },
    },
  },
  '/openenv/step': {
    post: {
      operationId: 'openEnvStep',
      tags: ['OpenEnv'],
      summary:
        'One text turn of the episode `episode_id` names, ' +
        "as POST /v1/episodes/{id}/turns; the last one's reward is R_traj",
      description:
        'The episode is named in the body or by `?episode_id=` (under `serve --workers N` the query routes the ' +
        'request to the worker that holds it). `timeout_s` and `request_id` are accepted and ignored. The reward is ' +
        'null until the episode is done.',
      parameters: [
        {
          name: 'episode_id',
          in: 'query',
          description: 'The episode, when the body does not name it.',
          schema: { type: 'string', minLength: 1 },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('OpenEnvStepRequest') } } },
      responses: {
        '200': json('The next user message; once done, the rewards.', ref('OpenEnvResult')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
        '409': problemDoc(
          'The episode is done, or it took JSON steps, or the body and `?episode_id=` name two live episodes.',
        ),
        '413': PROBLEMS['413'],
        '422': problemDoc(
          'An invalid step: no `episode_id`, or an action other than `{"text": string}` (with `errors`).',
        ),
      },
    },
  },
  '/openenv/state': {
    get: {
      operationId: 'openEnvState',
      tags: ['OpenEnv'],
      summary: "OpenEnv's state of an episode: turns taken, done, the task's query",
      parameters: [
        {
          name: 'episode_id',
          in: 'query',
          required: true,
          description: 'The episode POST /openenv/reset started.',
          schema: { type: 'string', minLength: 1 },
        },
      ],
      responses: {
        '200': json('The state.', ref('OpenEnvState')),
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
        '422': problemDoc('No `episode_id`.'),
      },
    },
  },
  '/openenv/ws': {
    get: {
      operationId: 'openEnvSession',
      tags: ['OpenEnv'],
      summary: "OpenEnv's WebSocket session (what its EnvClient speaks): one connection, one episode at a time",
      description:
        'Text frames of JSON, one reply each: `{"type": "reset", "data": {…reset request}}` and `{"type": "step", ' +
        '"data": {"text"}}` answer `{"type": "observation", "data": OpenEnvResult}`, `{"type": "state"}` answers ' +
        '`{"type": "state", "data": OpenEnvState}`, `{"type": "close"}` closes (1000). Errors answer `{"type": ' +
        '"error", "data": {"message", "code"}}` (INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR, EXECUTION_ERROR) and ' +
        'leave the session open, but CAPACITY_REACHED (the live-episode cap), after which it closes (1013). A reset ' +
        "replaces the session's episode; closing ends it. Messages are at most the body limit.",
      responses: {
        '101': { description: 'Switching to the WebSocket session.' },
        '401': PROBLEMS['401'],
        '426': problemDoc('Not a WebSocket upgrade.'),
      },
    },
  },
});

/** `POST /openenv/step`'s body → the episode and the action. Throws EpisodeError 400. */
function stepRequest(body: unknown, queried: string | undefined): { id: string; action: unknown } {
  if (!isRecord(body))
    throw invalidRequest('step', [{ path: '', message: 'must be a JSON object {"episode_id", "action": {"text"}}' }]);
  const check = new Checker();
  check.members(body, '', STEP_MEMBERS);
  const given = body.episode_id;
  if (given !== undefined && typeof given !== 'string')
    check.add('/episode_id', 'must be a string: the episode POST /openenv/reset started');
  else if (given === undefined && queried === undefined)
    check.add('/episode_id', 'is required: the episode POST /openenv/reset started');
  if (body.action === undefined) check.add('/action', 'is required: {"text": "<the model message>"}');
  if (check.errors.length > 0) throw invalidRequest('step', check.errors);
  return { id: (given as string | undefined) ?? queried!, action: body.action };
}

/**
 * The body and `?episode_id=` name two episodes: 404 for one the server does not hold, else 409, as the request is
 * well formed and only the episodes it names disagree.
 */
function twoEpisodes(env: OpenEnv, named: string, queried: string): never {
  env.state(named);
  env.state(queried);
  throw httpProblem(
    409,
    `the body names episode ${JSON.stringify(named)} and ?episode_id= ${JSON.stringify(queried)}: name one`,
    { title: 'Conflicting episodes' },
  );
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

/** The server's document of the routes under /openenv, made relative to it. */
function openEnvDocument(document: Record<string, unknown>): Record<string, unknown> {
  const paths = Object.entries(document.paths as Record<string, unknown>).map(([path, item]) => [
    path.slice(OPENENV_PREFIX.length),
    item,
  ]);
  const [server] = document.servers as { url: string }[];
  return {
    ...document,
    servers: [{ url: `${server!.url}${OPENENV_PREFIX}` }],
    tags: [{ name: 'OpenEnv' }],
    paths: Object.fromEntries(paths),
  };
}
