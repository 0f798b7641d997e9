import { Hono } from 'hono';
import type { RewardContext } from '../episodes/rewards.js';
import { answerOutcome, scoreTrajectory } from '../rl/rewards.js';
import { listRuns, readRun, runDir, runEpisode, runEpisodes } from './runs.js';
import { problemResponse } from '../http/problem-response.js';

/**
 * The run directories of `serve --runs DIR`, read-only: `GET /v1/runs` lists them, `GET /v1/runs/{name}` is one
 * run (an eval report, or a training run's per-step metrics), `GET /v1/runs/{name}/episodes` its episodes and
 * `GET /v1/runs/{name}/episodes/{id}` one of them with its rewards. A name with slashes travels URL-encoded.
 * Without `--runs` the list is empty and says why.
 */
export function runRoutes(root: string | undefined): (ctx: { rewards: RewardContext }) => Hono {
  return ({ rewards }) => runApp(root, rewards);
}

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

  app.get('/v1/runs', (c) =>
    c.json(
      root === undefined
        ? { runs: [], detail: 'this server shows no runs: start it with --runs DIR' }
        : { runs: listRuns(root) },
    ),
  );

  app.get('/v1/runs/:name', (c) => {
    const run = root === undefined ? undefined : readRun(root, c.req.param('name'));
    return run ? c.json(run) : unknown(c.req.param('name'));
  });

  app.get('/v1/runs/:name/episodes', (c) => {
    const episodes = root === undefined ? undefined : runEpisodes(root, c.req.param('name'));
    return episodes ? c.json({ episodes }) : unknown(c.req.param('name'));
  });

  app.get('/v1/runs/:name/episodes/:episode', async (c) => {
    const name = c.req.param('name');
    const id = c.req.param('episode');
    if (root === undefined || !runDir(root, name)) return unknown(name);
    const saved = runEpisode(root, name, id);
    if (!saved)
      return problemResponse(404, `run ${JSON.stringify(name)} kept no trajectory of episode ${JSON.stringify(id)}`, {
        title: 'Unknown episode',
      });
    // A training run keeps only the reward totals per rollout: the breakdown is scored again, by the server's own
    // functions, without a judge (R_ans then comes from the task's expected answer or is flagged).
    const scored =
      saved.rewards ?? scoreTrajectory(saved.trajectory, await answerOutcome(saved.trajectory, {}), rewards.graph());
    return c.json({ ...saved, rewards: scored, rescored: saved.rewards === undefined });
  });

  return app;
}
