/**
 * What the studio tests look at: the eval fixture library with its dependency graph, two real `toolenv eval` run
 * directories (the CLI spawned), and two training run directories written as `toolenv train` and the Python
 * records writer lay them out (train.json, episodes/*.jsonl, trajectories/*.jsonl, trainer.jsonl), their rollouts
 * being the eval runs' real episodes, and a learner run as `bench --learning --learner linear` writes it (learner.json,
 * metrics.jsonl). A real TRL run takes minutes of both cores; the studio reads only the files.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRun } from '../../src/agent/types.js';
import { buildGraph } from '../../src/graph/build.js';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { writeEvalLibrary, writeText, writeToolbenchQueries } from '../eval/fixture.js';
import { TASK } from '../episodes/paraact-text.js';
import { FEATURES, initialWeights } from '../../src/learner/linear.js';
import { COMPARED, LEARNER_METRICS, LEARNER_REPORT } from '../../src/learner/run-file.js';
import type { Compared, LearnerMetricsRow, LearnerReport } from '../../src/learner/run-file.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

export interface StudioFixture {
  library: string;
  runs: string;
}

export function toolenv(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOOLENV_DEBUG: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`toolenv ${args.join(' ')} exited ${code}: ${err}`)),
    );
  });
}

export async function studioFixture(): Promise<StudioFixture> {
  const library = await writeEvalLibrary();
  await buildGraph(library);
  const runs = tempDir('toolenv-runs-');
  const tasks = writeToolbenchQueries();
  const cache = join(tempDir(), 'responses.db');
  const evalRun = (out: string, agents: string, seed: number) =>
    toolenv([
      'eval',
      '--library',
      library,
      '--cache',
      cache,
      '--tasks',
      tasks,
      '--agent',
      agents,
      '--seed',
      String(seed),
      '--error-rate',
      '0.1',
      '--out',
      join(runs, out),
      '--json',
    ]);
  await evalRun('eval-a', 'paraact,react', 1);
  await evalRun('eval-b', 'parallel', 2);
  // The training runs' rollouts: a task with an expected answer, so that R_ans, R_traj and success are scored.
  const rollouts = join(tempDir(), 'rollouts');
  await toolenv([
    'eval',
    '--library',
    library,
    '--cache',
    cache,
    '--tasks',
    writeText('rex.jsonl', `${JSON.stringify(TASK)}\n`),
    '--agent',
    'paraact,react',
    '--runs',
    '4',
    '--seed',
    '5',
    '--error-rate',
    '0.3',
    '--out',
    rollouts,
    '--json',
  ]);
  const saved = savedRuns(rollouts);
  // rl-a cycles through two tasks, one a step: its 4 steps are 2 epochs.
  writeTrainRun(join(runs, 'train', 'rl-a'), saved, 2, 0.9, 2);
  writeTrainRun(join(runs, 'train', 'rl-b'), [...saved].reverse(), 3, 0.7);
  writeLearnerRun(join(runs, 'learner'));
  return { library, runs };
}

function savedRuns(dir: string): AgentRun[] {
  const root = join(dir, 'trajectories');
  return readdirSync(root)
    .flatMap((agent) =>
      readdirSync(join(root, agent))
        .sort()
        .map((name) => JSON.parse(readFileSync(join(root, agent, name), 'utf8')) as AgentRun),
    )
    .filter((run) => run.trajectory && run.rewards);
}

/**
 * A GRPO run as the CLI and python/src/toolenv/records.py leave it: `perStep` rollouts per step, a falling loss, and
 * with `tasks` the task file the CLI writes (that many tasks).
 */
function writeTrainRun(dir: string, rollouts: AgentRun[], perStep: number, decay: number, tasks?: number): void {
  mkdirSync(join(dir, 'episodes'), { recursive: true });
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  if (tasks !== undefined)
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      Array.from({ length: tasks }, (_, i) => `${JSON.stringify({ ...TASK, id: `${TASK.id}-${i}` })}\n`).join(''),
    );
  const started = Date.now() / 1000 - 600;
  const steps = Math.floor(rollouts.length / perStep);
  const train = {
    engine: 'trl',
    stage: 'rl',
    run_dir: dir,
    model: 'tiny',
    server: 'http://127.0.0.1:0',
    steps,
    group: perStep,
    prompts_per_step: 1,
    seed: 0,
    episode: { protocol: 'paraact', max_turns: 15 },
    max_turn_tokens: 128,
    max_completion_length: 1024,
    trainer: {},
  };
  writeFileSync(join(dir, 'train.json'), `${JSON.stringify(train, null, 2)}\n`);
  const episodes: string[] = [];
  const trajectories: string[] = [];
  const logs: string[] = [];
  for (let step = 1; step <= steps; step++) {
    const time = started + step * 30;
    for (const run of rollouts.slice((step - 1) * perStep, step * perStep)) {
      const { trajectory, rewards } = run as Required<AgentRun>;
      const actions = trajectory.turns.reduce((sum, t) => sum + t.searches.length + t.calls.length, 0);
      episodes.push(
        JSON.stringify({
          step,
          episode: trajectory.id,
          group: null,
          task: trajectory.task?.id ?? null,
          seed: trajectory.seed,
          r_step: rewards.r_step,
          r_phase: rewards.r_phase,
          r_traj: rewards.r_traj,
          r_ans: rewards.r_ans,
          success: rewards.success,
          flagged: rewards.flagged ?? null,
          turns: trajectory.turns.length,
          actions,
          tokens: run.tokens.completion,
          time,
        }),
      );
      trajectories.push(JSON.stringify({ step, ...trajectory }));
    }
    logs.push(
      JSON.stringify({
        step,
        loss: 0.5 * decay ** step,
        grad_norm: 1 + step / 10,
        learning_rate: 1e-4,
        time: time + 1,
      }),
    );
  }
  writeFileSync(join(dir, 'episodes', '1.jsonl'), `${episodes.join('\n')}\n`);
  writeFileSync(join(dir, 'trajectories', '1.jsonl'), `${trajectories.join('\n')}\n`);
  writeFileSync(join(dir, 'trainer.jsonl'), `${logs.join('\n')}\n`);
}

/** A learner run of 2 seeds and 4 steps, a checkpoint every 2: the trained curve rises, the control's stays flat. */
export function writeLearnerRun(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const held = (success: number, r_traj: number) => ({ success, r_traj, successes: Math.round(success * 20), n: 20 });
  const policy = (success: number, r_traj: number) => {
    const [low, high] = [Math.max(0, success - 0.15), Math.min(1, success + 0.15)];
    const pooled = { successes: Math.round(success * 40), n: 40, low, high };
    return { success, r_traj, spread: { success: 0.05, r_traj: 0.1 }, pooled };
  };
  const levels: Record<Compared, [number, number]> = {
    untrained: [0.1, -0.1],
    trained: [0.7, 1.3],
    control: [0.1, -0.15],
    random: [0.05, -0.2],
    heuristic: [0.65, 1.2],
  };
  const each = <T>(make: (success: number, r_traj: number) => T) =>
    Object.fromEntries(COMPARED.map((name) => [name, make(levels[name][0], levels[name][1])])) as Record<Compared, T>;
  const curve: LearnerMetricsRow[] = Array.from({ length: 5 }, (_, step) => {
    const checkpoint = step % 2 === 0;
    const at = (value: number) => (checkpoint ? value : null);
    return {
      step,
      episodes: step * 8,
      rollout_success: step === 0 ? null : 0.15 * step,
      rollout_r_traj: step === 0 ? null : -0.2 + 0.35 * step,
      control_rollout_success: step === 0 ? null : 0.05,
      control_rollout_r_traj: step === 0 ? null : -0.2,
      heldout_success: at(0.1 + 0.15 * step),
      heldout_r_traj: at(-0.1 + 0.35 * step),
      control_heldout_success: at(0.1),
      control_heldout_r_traj: at(-0.1),
      random_success: at(0.05),
      random_r_traj: at(-0.2),
      heuristic_success: at(0.65),
      heuristic_r_traj: at(1.2),
    };
  });
  const weights = initialWeights(1);
  const report: LearnerReport = {
    learner: 'linear',
    policy: 'log-linear: a softmax over linear scores of generic features; not a language model',
    wall_s: 12.3,
    seeds: [1, 2],
    episodes: 400,
    episodes_per_s: 40,
    server_share: 0.4,
    learner_share: 0.6,
    synth_s: 2,
    heldout_tasks: 20,
    heldout_apis_seen_in_training: 0,
    failed_episodes: 0,
    settings: {
      ...{ pool: 60, tools: '1-2', steps: 4, batch: 2, group: 4, lr: 2 },
      ...{ k: 5, max_turns: 5, checkpoint_every: 2, curve_tasks: 10 },
    },
    summary: each(policy),
    checks: {
      learned: { difference: 0.6, threshold: 0.15, passed: true },
      control_flat: { difference: 0, threshold: 0.05, passed: true },
    },
    features: FEATURES,
    runs: [1, 2].map((seed) => ({
      seed,
      heldout_tasks: 20,
      train_tasks: 30,
      heldout_apis: 2,
      heldout_apis_seen_in_training: 0,
      failed_episodes: 0,
      scores: each(held),
      weights: { initial: weights, trained: weights, control: weights },
      curve,
    })),
    out: dir,
  };
  writeFileSync(join(dir, LEARNER_REPORT), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, LEARNER_METRICS), curve.map((row) => `${JSON.stringify(row)}\n`).join(''));
}
