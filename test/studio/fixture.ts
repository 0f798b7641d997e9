/**
 * What the studio tests look at: the eval fixture library with its dependency graph, two real `toolenv eval` run
 * directories (the CLI spawned), and two training run directories written as `toolenv train` and the Python
 * records writer lay them out (train.json, episodes/*.jsonl, trajectories/*.jsonl, trainer.jsonl), their rollouts
 * being the eval runs' real episodes. A real TRL run takes minutes of both cores; the studio reads only the files.
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
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`toolenv ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

export async function studioFixture(): Promise<StudioFixture> {
  const library = await writeEvalLibrary();
  await buildGraph(library);
  const runs = tempDir('toolenv-runs-');
  const tasks = writeToolbenchQueries();
  const cache = join(tempDir(), 'responses.db');
  const evalRun = (out: string, agents: string, seed: number) =>
    toolenv(['eval', '--library', library, '--cache', cache, '--tasks', tasks, '--agent', agents, '--seed', String(seed), '--error-rate', '0.1', '--out', join(runs, out), '--json']);
  await evalRun('eval-a', 'paraact,react', 1);
  await evalRun('eval-b', 'parallel', 2);
  // The training runs' rollouts: a task with an expected answer, so that R_ans, R_traj and success are scored.
  const rollouts = join(tempDir(), 'rollouts');
  await toolenv(['eval', '--library', library, '--cache', cache, '--tasks', writeText('rex.jsonl', `${JSON.stringify(TASK)}\n`), '--agent', 'paraact,react', '--runs', '4', '--seed', '5', '--error-rate', '0.3', '--out', rollouts, '--json']);
  const saved = savedRuns(rollouts);
  // rl-a cycles through two tasks, one a step: its 4 steps are 2 epochs.
  writeTrainRun(join(runs, 'train', 'rl-a'), saved, 2, 0.9, 2);
  writeTrainRun(join(runs, 'train', 'rl-b'), [...saved].reverse(), 3, 0.7);
  return { library, runs };
}

function savedRuns(dir: string): AgentRun[] {
  const root = join(dir, 'trajectories');
  return readdirSync(root).flatMap((agent) =>
    readdirSync(join(root, agent))
      .sort()
      .map((name) => JSON.parse(readFileSync(join(root, agent, name), 'utf8')) as AgentRun),
  ).filter((run) => run.trajectory && run.rewards);
}

/**
 * A GRPO run as the CLI and python/src/toolenv/records.py leave it: `perStep` rollouts per step, a falling loss, and
 * with `tasks` the task file the CLI writes (that many tasks).
 */
function writeTrainRun(dir: string, rollouts: AgentRun[], perStep: number, decay: number, tasks?: number): void {
  mkdirSync(join(dir, 'episodes'), { recursive: true });
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  if (tasks !== undefined) writeFileSync(join(dir, 'tasks.jsonl'), Array.from({ length: tasks }, (_, i) => `${JSON.stringify({ ...TASK, id: `${TASK.id}-${i}` })}\n`).join(''));
  const started = Date.now() / 1000 - 600;
  const steps = Math.floor(rollouts.length / perStep);
  writeFileSync(
    join(dir, 'train.json'),
    `${JSON.stringify({ engine: 'trl', stage: 'rl', run_dir: dir, model: 'tiny', server: 'http://127.0.0.1:0', steps, group: perStep, prompts_per_step: 1, seed: 0, episode: { protocol: 'paraact', max_turns: 15 }, max_turn_tokens: 128, max_completion_length: 1024, trainer: {} }, null, 2)}\n`,
  );
  const episodes: string[] = [];
  const trajectories: string[] = [];
  const logs: string[] = [];
  for (let step = 1; step <= steps; step++) {
    const time = started + step * 30;
    for (const run of rollouts.slice((step - 1) * perStep, step * perStep)) {
      const { trajectory, rewards } = run as Required<AgentRun>;
      const actions = trajectory.turns.reduce((sum, t) => sum + t.searches.length + t.calls.length, 0);
      episodes.push(JSON.stringify({ step, episode: trajectory.id, group: null, task: trajectory.task?.id ?? null, seed: trajectory.seed, r_step: rewards.r_step, r_phase: rewards.r_phase, r_traj: rewards.r_traj, r_ans: rewards.r_ans, success: rewards.success, flagged: rewards.flagged ?? null, turns: trajectory.turns.length, actions, tokens: run.tokens.completion, time }));
      trajectories.push(JSON.stringify({ step, ...trajectory }));
    }
    logs.push(JSON.stringify({ step, loss: 0.5 * decay ** step, grad_norm: 1 + step / 10, learning_rate: 1e-4, time: time + 1 }));
  }
  writeFileSync(join(dir, 'episodes', '1.jsonl'), `${episodes.join('\n')}\n`);
  writeFileSync(join(dir, 'trajectories', '1.jsonl'), `${trajectories.join('\n')}\n`);
  writeFileSync(join(dir, 'trainer.jsonl'), `${logs.join('\n')}\n`);
}
