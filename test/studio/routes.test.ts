/**
 * The studio's routes over HTTP: its page and assets without the key, the runs of `serve --runs`, the episode listing.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir } from '../fixtures/tools.js';
import { EXECUTE, EXPLORE, TASK } from '../episodes/paraact-text.js';
import { expectProblem, postJson, rawRequest } from '../server/helpers.js';
import { studioFixture, toolenv, type StudioFixture } from './fixture.js';
import type { LearnerReport } from '../../src/learner/run-file.js';
import { runRoutes } from '../../src/studio/routes.js';

const KEY = 'k-routes';
const auth = { authorization: `Bearer ${KEY}` };
let fixture: StudioFixture;
let server: RunningServer;

before(async () => {
  fixture = await studioFixture();
  server = await startServer({
    library: fixture.library,
    routes: [runRoutes(fixture.runs)],
    cache: join(tempDir(), 'c.db'),
    responders: [synthResponder],
    errorRate: 0,
    apiKey: KEY,
    port: 0,
    log: () => {},
  });
});
after(() => server?.close());

const get = (path: string, headers: Record<string, string> = auth) => fetch(`${server.url}${path}`, { headers });

test('the page and its assets are served without the key, and hold no data; the API behind them needs it', async () => {
  const page = await get('/studio', {});
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  // Only the studio's own scripts run (and the import map, by its hash); it talks to this server alone.
  assert.match(
    page.headers.get('content-security-policy')!,
    /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'; .*connect-src 'self'/,
  );
  const html = await page.text();
  assert.match(html, /"uplot": "\/studio\/assets\/uplot\.js"/);
  assert.ok(!html.includes(KEY));
  for (const [asset, type] of [
    ['main.js', /javascript/],
    ['uplot.js', /javascript/],
    ['uplot.css', /css/],
    ['studio.css', /css/],
  ] as const) {
    const response = await get(`/studio/assets/${asset}`, {});
    assert.equal(response.status, 200, asset);
    assert.match(response.headers.get('content-type')!, type);
    assert.ok((await response.text()).length > 100);
  }
  const zipped = await rawRequest(server.url, '/studio/assets/uplot.js', { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.ok(Number(zipped.headers['content-length']) < 60_000, String(zipped.headers['content-length']));
  // Only the studio's own files: nothing else on disk is reachable through the asset route.
  for (const name of ['..%2Fpackage.json', 'package.json', '.env', 'main.ts'])
    await expectProblem(await get(`/studio/assets/${name}`, {}), 404);
  await expectProblem(await get('/v1/runs', {}), 401);
  await expectProblem(await get('/v1/library', {}), 401);
  await expectProblem(await get('/v1/episodes', {}), 401);
});

test('GET /v1/library: the counts by category the facets show', async () => {
  const stats = (await (await get('/v1/library')).json()) as {
    tools: number;
    categories: { category: string; tools: number }[];
  };
  assert.equal(stats.tools, 14);
  assert.deepEqual(stats.categories.map((c) => c.category).sort(), ['ecommerce', 'finance', 'news_media', 'weather']);
});

test('GET /v1/runs lists eval, train and learner runs two levels down at most; each answers its report', async () => {
  const { runs } = (await (await get('/v1/runs')).json()) as { runs: { name: string; kind: string; label: string }[] };
  assert.deepEqual(runs.map((r) => [r.name, r.kind, r.label]).sort(), [
    ['eval-a', 'eval', 'eval: paraact, react'],
    ['eval-b', 'eval', 'eval: parallel'],
    ['learner', 'learner', 'linear learner, 2 seeds'],
    ['train/rl-a', 'train', 'trl rl'],
    ['train/rl-b', 'train', 'trl rl'],
  ]);
  const evalRun = (await (await get('/v1/runs/eval-a')).json()) as {
    kind: string;
    report: { agents: string[]; results: unknown[] };
  };
  assert.equal(evalRun.kind, 'eval');
  assert.deepEqual(evalRun.report.agents, ['paraact', 'react']);
  // Still running (no metrics.jsonl): the rows come from the rollouts and the engine's logs, as the CLI computes them.
  const train = (await (await get(`/v1/runs/${encodeURIComponent('train/rl-a')}`)).json()) as {
    finished: boolean;
    config: { tasks: number | null; epoch_steps: number | null };
    metrics: { step: number; episodes: number; r_step: number; loss?: number }[];
  };
  assert.equal(train.finished, false);
  // The tasks its prompts come from, so that the studio reads its steps as epochs; a run without a task file has none.
  assert.equal(train.config.tasks, 2);
  assert.equal(train.config.epoch_steps, 2);
  assert.equal(
    ((await (await get(`/v1/runs/${encodeURIComponent('train/rl-b')}`)).json()) as { config: { tasks: number | null } })
      .config.tasks,
    null,
  );
  assert.deepEqual(
    train.metrics.map((m) => [m.step, m.episodes]),
    [
      [1, 2],
      [2, 2],
      [3, 2],
      [4, 2],
    ],
  );
  assert.ok(train.metrics.every((m) => typeof m.r_step === 'number' && typeof m.loss === 'number'));
  await expectProblem(await get('/v1/runs/nope'), 404);
  await expectProblem(await get(`/v1/runs/${encodeURIComponent('../etc')}`), 404);
  await expectProblem(await get('/v1/runs/train'), 404);
});

test('a learner run answers its report and its curve, step by step; it keeps no episodes', async () => {
  type Row = { step: number; heldout_success: number | null; control_heldout_success: number | null };
  const run = (await (await get('/v1/runs/learner')).json()) as { kind: string; report: LearnerReport; metrics: Row[] };
  assert.equal(run.kind, 'learner');
  assert.equal(run.report.learner, 'linear');
  assert.deepEqual(Object.keys(run.report.summary), ['untrained', 'trained', 'control', 'random', 'heuristic']);
  assert.equal(run.report.checks.learned.passed, true);
  assert.deepEqual(
    run.metrics.map((m) => m.step),
    [0, 1, 2, 3, 4],
  );
  // Held-out points at the checkpoints only; the plot bridges the steps between.
  assert.deepEqual(
    run.metrics.map((m) => m.heldout_success),
    [0.1, null, 0.4, null, 0.7],
  );
  assert.deepEqual(
    run.metrics.map((m) => m.control_heldout_success),
    [0.1, null, 0.1, null, 0.1],
  );
  assert.deepEqual(((await (await get('/v1/runs/learner/episodes')).json()) as { episodes: unknown[] }).episodes, []);
  await expectProblem(await get('/v1/runs/learner/episodes/any'), 404);
});

test('a finished training run answers its metrics.jsonl', async () => {
  const root = tempDir('toolenv-runs-');
  const dir = join(root, 'sft');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'train.json'),
    JSON.stringify({
      engine: 'trl',
      stage: 'sft',
      model: 'tiny',
      steps: 2,
      group: 1,
      prompts_per_step: 1,
      seed: 0,
      episode: {},
    }),
  );
  writeFileSync(join(dir, 'metrics.jsonl'), '{"step":1,"loss":2.5,"wall_s":1}\n{"step":2,"loss":1.5,"wall_s":1}\n');
  const other = await startServer({
    library: fixture.library,
    routes: [runRoutes(dir)],
    responders: [synthResponder],
    port: 0,
    log: () => {},
  });
  try {
    const { runs } = (await (await fetch(`${other.url}/v1/runs`)).json()) as { runs: { name: string }[] };
    assert.deepEqual(
      runs.map((r) => r.name),
      ['sft'],
    );
    const run = (await (await fetch(`${other.url}/v1/runs/sft`)).json()) as {
      finished: boolean;
      metrics: { loss: number }[];
    };
    assert.equal(run.finished, true);
    assert.deepEqual(
      run.metrics.map((m) => m.loss),
      [2.5, 1.5],
    );
  } finally {
    await other.close();
  }
});

test(
  "a run's episodes: eval ones with the rewards they were " +
    'scored with, train ones scored again from the trajectory',
  async () => {
    const { episodes } = (await (await get('/v1/runs/eval-a/episodes')).json()) as {
      episodes: { episode: string; agent: string; r_step: number }[];
    };
    assert.equal(episodes.length, 10);
    const first = episodes[0]!;
    const saved = (await (await get(`/v1/runs/eval-a/episodes/${first.episode}`)).json()) as {
      trajectory: { id: string; turns: unknown[] };
      rewards: { r_step: number };
      rescored: boolean;
    };
    assert.equal(saved.trajectory.id, first.episode);
    assert.ok(saved.trajectory.turns.length > 0);
    assert.equal(saved.rewards.r_step, first.r_step);
    assert.equal(saved.rescored, false);

    const name = encodeURIComponent('train/rl-a');
    const trainEpisodes = (
      (await (await get(`/v1/runs/${name}/episodes`)).json()) as {
        episodes: { episode: string; step: number; r_step: number; r_traj: number }[];
      }
    ).episodes;
    assert.equal(trainEpisodes.length, 8);
    const one = trainEpisodes[0]!;
    const rescored = (await (await get(`/v1/runs/${name}/episodes/${one.episode}`)).json()) as {
      rewards: { r_step: number; r_traj: number; phases: unknown[] };
      rescored: boolean;
      record: { step: number };
    };
    assert.equal(rescored.rescored, true);
    assert.equal(rescored.record.step, one.step);
    // The task has an expected answer: scored by rule, the same as the server scored it live.
    assert.equal(rescored.rewards.r_step, one.r_step);
    assert.equal(rescored.rewards.r_traj, one.r_traj);
    await expectProblem(await get(`/v1/runs/${name}/episodes/nope`), 404);
  },
);

test('without --runs the list is empty and says why', async () => {
  const other = await startServer({
    library: fixture.library,
    routes: [runRoutes(undefined)],
    responders: [synthResponder],
    port: 0,
    log: () => {},
  });
  try {
    const body = (await (await fetch(`${other.url}/v1/runs`)).json()) as { runs: unknown[]; detail: string };
    assert.deepEqual(body.runs, []);
    assert.match(body.detail, /--runs DIR/);
    await expectProblem(await fetch(`${other.url}/v1/runs/eval-a`), 404);
  } finally {
    await other.close();
  }
});

test('GET /v1/episodes: the episodes held, newest first, live and done; limit is checked', async () => {
  const a = (await (await postJson(`${server.url}/v1/episodes`, { task: TASK }, auth)).json()) as { id: string };
  const b = (await (await postJson(`${server.url}/v1/episodes`, { task: TASK, max_turns: 2 }, auth)).json()) as {
    id: string;
  };
  for (const text of [EXPLORE, EXECUTE])
    assert.equal((await postJson(`${server.url}/v1/episodes/${b.id}/turns`, { text }, auth)).status, 200);
  const listed = (await (await get('/v1/episodes')).json()) as {
    episodes: { id: string; done: boolean; counts: { turns: number } }[];
    total: number;
  };
  assert.deepEqual(
    listed.episodes.slice(0, 2).map((e) => [e.id, e.done, e.counts.turns]),
    [
      [b.id, true, 2],
      [a.id, false, 0],
    ],
  );
  const one = (await (await get('/v1/episodes?limit=1')).json()) as { episodes: { id: string }[]; total: number };
  assert.deepEqual(
    one.episodes.map((e) => e.id),
    [b.id],
  );
  assert.equal(one.total, listed.total);
  for (const limit of ['0', '1001', 'x', '-1']) await expectProblem(await get(`/v1/episodes?limit=${limit}`), 400);
  await fetch(`${server.url}/v1/episodes/${b.id}`, { method: 'DELETE', headers: auth });
  const after = (await (await get('/v1/episodes')).json()) as { episodes: { id: string }[] };
  assert.ok(!after.episodes.some((e) => e.id === b.id));
});

test('serve --runs: a path that is not a directory is a usage error', async () => {
  await assert.rejects(
    toolenv(['serve', '--library', fixture.library, '--runs', join(tempDir(), 'missing'), '--port', '0']),
    /exited 2: toolenv: --runs: .*missing is not a directory/,
  );
});
