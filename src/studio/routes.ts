import { Hono } from 'hono';
import type { RewardContext } from '../episodes/rewards.js';
import { problemResponse } from '../http/problem-response.js';
import { json, PROBLEMS, type Operations } from '../server/openapi-parts.js';

/**
 * The run directories of `serve --runs DIR`, read-only: `GET /v1/runs` lists them, `GET /v1/runs/{name}` is one
 * run (an eval report, or a training run's per-step metrics), `GET /v1/runs/{name}/episodes` its episodes and
 * `GET /v1/runs/{name}/episodes/{id}` one of them with its rewards. A name with slashes travels URL-encoded.
 * Without `--runs` the list is empty and says why. They come with their operations, for the server's /openapi.json.
 */
export function runRoutes(root: string | undefined): {
  routes: (ctx: { rewards: RewardContext }) => Hono;
  operations: Operations;
} {
  return { routes: ({ rewards }) => runApp(root, rewards), operations: runOperations };
}

/** The run files' readers, loaded by the first request for a run: a server starts without them. */
const runFiles = () => import('./runs.js');

function runApp(root: string | undefined, rewards: RewardContext): Hono {
  const app = new Hono();
  const unknown = (name: string) =>
    problemResponse(
      404,
      root === undefined
        ? 'this server shows no runs: start it with --runs DIR'
        : `no run ${JSON.stringify(name)} under --runs; GET /v1/runs lists them`,
      { title: 'Unknown run' },
    );

  app.get('/v1/runs', async (c) =>
    c.json(
      root === undefined
        ? { runs: [], detail: 'this server shows no runs: start it with --runs DIR' }
        : { runs: (await runFiles()).listRuns(root) },
    ),
  );

  app.get('/v1/runs/:name', async (c) => {
    const run = root === undefined ? undefined : (await runFiles()).readRun(root, c.req.param('name'));
    return run ? c.json(run) : unknown(c.req.param('name'));
  });

  app.get('/v1/runs/:name/episodes', async (c) => {
    const episodes = root === undefined ? undefined : (await runFiles()).runEpisodes(root, c.req.param('name'));
    return episodes ? c.json({ episodes }) : unknown(c.req.param('name'));
  });

  app.get('/v1/runs/:name/episodes/:episode', async (c) => {
    const name = c.req.param('name');
    const id = c.req.param('episode');
    const { runDir, runEpisode } = await runFiles();
    if (root === undefined || !runDir(root, name)) return unknown(name);
    const saved = runEpisode(root, name, id);
    if (!saved)
      return problemResponse(404, `run ${JSON.stringify(name)} kept no trajectory of episode ${JSON.stringify(id)}`, {
        title: 'Unknown episode',
      });
    // A training run keeps only the reward totals per rollout: the breakdown is scored again, by the server's own
    // functions, without a judge (R_ans then comes from the task's expected answer or is flagged).
    const { answerOutcome, scoreTrajectory } = await import('../rl/rewards.js');
    const scored =
      saved.rewards ?? scoreTrajectory(saved.trajectory, await answerOutcome(saved.trajectory, {}), rewards.graph());
    return c.json({ ...saved, rewards: scored, rescored: saved.rewards === undefined });
  });

  return app;
}

const RUN_NAME = {
  name: 'name',
  in: 'path',
  required: true,
  description: "The run's path below --runs, URL-encoded (`train%2Frl`).",
  schema: { type: 'string' },
};

/** The operations of runRoutes. */
export const runOperations: Operations = {
  '/v1/runs': {
    get: {
      operationId: 'listRuns',
      tags: ['Runs'],
      summary: 'The eval and train run directories under `serve --runs DIR`, newest first',
      responses: {
        '200': json('The runs (empty, with `detail`, without --runs).', { type: 'object', required: ['runs'] }),
        '401': PROBLEMS['401'],
      },
    },
  },
  '/v1/runs/{name}': {
    get: {
      operationId: 'getRun',
      tags: ['Runs'],
      summary:
        "One run: an eval report, or a training run's per-step metrics (computed from its rollouts while it runs)",
      parameters: [RUN_NAME],
      responses: {
        '200': json('The run.', { type: 'object', required: ['name', 'kind'] }),
        '401': PROBLEMS['401'],
        '404': PROBLEMS['404'],
      },
    },
  },
  '/v1/runs/{name}/episodes': {
    get: {
      operationId: 'listRunEpisodes',
      tags: ['Runs'],
      summary: 'The episodes a run kept, with their reward totals',
      parameters: [RUN_NAME],
      responses: {
        '200': json('The episodes.', { type: 'object', required: ['episodes'] }),
        '401': PROBLEMS['401'],
        '404': PROBLEMS['404'],
      },
    },
  },
  '/v1/runs/{name}/episodes/{episode}': {
    get: {
      operationId: 'getRunEpisode',
      tags: ['Runs'],
      summary:
        'One saved episode: its trajectory and its rewards (a ' +
        "training run's scored again from the trajectory, `rescored`)",
      parameters: [RUN_NAME, { name: 'episode', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': json('The episode.', { type: 'object', required: ['trajectory', 'rewards', 'rescored'] }),
        '401': PROBLEMS['401'],
        '404': PROBLEMS['404'],
      },
    },
  },
};
