import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { heuristicPolicy } from '../agent/heuristic/policy.js';
import type { EvalTask } from '../eval/map-references.js';
import type { TaskScore } from '../eval/score.js';
import type { Tool } from '../library/tool.js';
import { packageRoot } from '../paths.js';
import { hash32, Rng } from '../simulator/synth/random.js';
import { LinearAgent } from '../learner/agent.js';
import { FEATURES, initialWeights, type Weights } from '../learner/linear.js';
import { evaluate, type EpisodeSettings } from '../learner/rollout.js';
import { LEARNER_METRICS, LEARNER_REPORT, type HeldOutScore, type LearnerMetricsRow } from '../learner/run-file.js';
import type { LearnerReport, SeedResult } from '../learner/run-file.js';
import { train, type TrainStep } from '../learner/train.js';
import { checks, meanCurve, summarize } from './learner-report.js';
import { readPool, splitByApi, type PoolTask } from './learner-tasks.js';
import { cpuSeconds, startProcess, type Running } from './processes.js';
import { SERVE_READY } from './rollouts.js';

/**
 * `toolenv bench --learning --learner linear`: a reference learner that shows the reward teaching a policy in
 * minutes on a CPU. One pool of synthesized tasks; per seed, its APIs split in two, held-out tasks on APIs no
 * training task touches; the log-linear policy trained by policy gradient from the server's own group advantages,
 * through real episodes of a `toolenv serve` process (text turns, groups, `/v1/groups/{id}/advantages`), beside a
 * control whose advantages are permuted within each batch; the untrained, trained, control, random and heuristic
 * policies on the held-out tasks. The run directory (`learner.json`, `metrics.jsonl`) is a studio run.
 */

export interface LinearLearningOptions {
  library: string;
  out: string;
  seeds: readonly number[];
  /** Tasks synthesized once for every seed's split. */
  pool: number;
  heldOut: number;
  tools: { min: number; max: number };
  steps: number;
  batch: number;
  group: number;
  lr: number;
  k: number;
  maxTurns: number;
  /** Steps between held-out checkpoints of the curve. */
  checkpointEvery: number;
  /** Held-out tasks the curve's checkpoints run, spread evenly over each seed's set. */
  curveTasks: number;
  log: (line: string) => void;
}

/** Episodes in flight per evaluation; a training step has its batch's groups in flight. */
const CONCURRENCY = 16;

const POLICY =
  'log-linear: a softmax over linear scores of generic features, per decision (tool, argument value, answer field); ' +
  'not a language model';

export async function runLinearLearning(options: LinearLearningOptions): Promise<LearnerReport> {
  const started = performance.now();
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'toolenv-learner-'));
  const poolFile = join(out, 'tasks-pool.jsonl');
  const { synthCommand } = await import('../tasks/synth/command.js');
  // The pool is drawn while the server starts in its own process: answers hold for the server's seed 0.
  const [served, synthesized] = await Promise.allSettled([
    serve(options.library, join(work, 'responses.db')),
    synthCommand({
      count: options.pool,
      seed: options.seeds[0]!,
      serverSeed: 0,
      minTools: options.tools.min,
      maxTools: options.tools.max,
      hard: false,
      library: options.library,
      out: poolFile,
    }),
  ]);
  if (served.status === 'rejected' || synthesized.status === 'rejected') {
    if (served.status === 'fulfilled') await served.value.stop();
    rmSync(work, { recursive: true, force: true });
    throw served.status === 'rejected' ? served.reason : (synthesized as PromiseRejectedResult).reason;
  }
  const server = served.value;
  // What the server says past its ready line (a failure, a crash) is kept beside the run.
  const serverLog = createWriteStream(join(out, 'server.log'));
  server.child.stdout!.pipe(serverLog);
  server.child.stderr!.pipe(serverLog);
  try {
    const synth_s = seconds(started);
    const pool = readPool(poolFile, options.library);
    const url = SERVE_READY.exec(server.ready)![1]!;
    options.log(`toolenv: bench --learning --learner linear: ${pool.length} tasks in ${synth_s} s; serving at ${url}`);
    const records = new Map<string, Tool>();
    const settings: EpisodeSettings = { server: url, k: options.k, maxTurns: options.maxTurns, records };
    const loopStarted = performance.now();
    const serverCpu = cpuSeconds(server.child.pid!);
    const ownCpu = process.cpuUsage();
    const heuristicRuns = new Map<string, TaskScore>();
    const runs: SeedResult[] = [];
    let episodes = 0;
    for (const seed of options.seeds) {
      const result = await runSeed(options, settings, pool, seed, heuristicRuns);
      runs.push(result.seed);
      episodes += result.episodes;
    }
    const loop_s = seconds(loopStarted);
    const own = process.cpuUsage(ownCpu);
    const share = (cpu: number) => Math.round((cpu / loop_s) * 1000) / 1000;
    const summary = summarize(runs);
    const report: LearnerReport = {
      learner: 'linear',
      policy: POLICY,
      wall_s: seconds(started),
      seeds: [...options.seeds],
      episodes,
      episodes_per_s: Math.round((episodes / loop_s) * 10) / 10,
      server_share: share(cpuSeconds(server.child.pid!) - serverCpu),
      learner_share: share((own.user + own.system) / 1e6),
      synth_s,
      heldout_tasks: options.heldOut,
      heldout_apis_seen_in_training: runs.reduce((n, r) => n + r.heldout_apis_seen_in_training, 0),
      failed_episodes: runs.reduce((n, r) => n + r.failed_episodes, 0),
      settings: {
        pool: pool.length,
        tools: `${options.tools.min}-${options.tools.max}`,
        steps: options.steps,
        batch: options.batch,
        group: options.group,
        lr: options.lr,
        k: options.k,
        max_turns: options.maxTurns,
        checkpoint_every: options.checkpointEvery,
        curve_tasks: options.curveTasks,
      },
      summary,
      checks: checks(summary),
      features: FEATURES,
      runs,
      out,
    };
    writeFileSync(
      join(out, LEARNER_METRICS),
      meanCurve(runs)
        .map((row) => `${JSON.stringify(row)}\n`)
        .join(''),
    );
    writeFileSync(join(out, LEARNER_REPORT), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** `toolenv serve` in its own process, as a trainer meets it: the library, a fresh cache, no injected errors. */
function serve(library: string, cache: string): Promise<Running> {
  const bin = join(packageRoot, 'bin/toolenv');
  return startProcess(
    process.execPath,
    [bin, 'serve', '--port', '0', '--library', library, '--cache', cache, '--error-rate', '0', '--json'],
    SERVE_READY,
  );
}

/**
 * One seed: the split, the untrained, random and heuristic policies on its held-out tasks, the trained learner and
 * its control side by side with their checkpoints, and both on the held-out tasks at the end.
 */
async function runSeed(
  options: LinearLearningOptions,
  settings: EpisodeSettings,
  pool: readonly PoolTask[],
  seed: number,
  heuristicRuns: Map<string, TaskScore>,
): Promise<{ seed: SeedResult; episodes: number }> {
  const log = (line: string) => options.log(`toolenv: seed ${seed}: ${line}`);
  const split = splitByApi(pool, seed, options.heldOut);
  const { heldOut } = split;
  log(`${heldOut.length} held-out tasks on ${split.heldOutApis} APIs; ${split.train.length} training tasks on others`);
  const initial = initialWeights(seed);
  const greedy = (weights: Weights) => () => new LinearAgent(weights, 'greedy', new Rng(0), options.k);
  const draws = (task: EvalTask) => new Rng(hash32(`${seed}:${task.task.id}`));
  const uniform = (task: EvalTask) => new LinearAgent(initial, 'uniform', draws(task), options.k);
  const run = (tasks: readonly PoolTask[], weights: Weights) => evaluate(settings, tasks, greedy(weights), CONCURRENCY);
  const fresh = heldOut.filter((t) => !heuristicRuns.has(t.task.id));
  const [untrained, random, heuristicFresh] = await Promise.all([
    run(heldOut, initial),
    evaluate(settings, heldOut, uniform, CONCURRENCY),
    // The heuristic is deterministic: a task another seed also held out is not run again.
    evaluate(settings, fresh, () => heuristicPolicy(), CONCURRENCY),
  ]);
  for (const s of heuristicFresh) heuristicRuns.set(s.task_id, s);
  const heuristic = heldOut.map((t) => heuristicRuns.get(t.task.id)!);
  const [u, r, h] = [untrained, random, heuristic].map((scores) => pct(score(scores).success));
  log(`held-out success: untrained ${u}, random ${r}, heuristic ${h}`);

  // Spread over the held-out set, which lists one-tool tasks first (the pool's order): the curve holds both kinds.
  const stride = Math.max(1, Math.floor(heldOut.length / options.curveTasks));
  const curveTasks = heldOut.filter((_, i) => i % stride === 0).slice(0, options.curveTasks);
  const curveIds = new Set(curveTasks.map((t) => t.task.id));
  const onCurve = (scores: readonly TaskScore[]) => scores.filter((s) => curveIds.has(s.task_id));
  const checkpoints = new Map<string, TaskScore[]>();
  const rollouts = new Map<string, TrainStep>();
  const checkpointRuns: TaskScore[][] = [];
  const { steps, batch, group, lr } = options;
  const learn = (shuffle: boolean) =>
    train({ tasks: split.train, steps, batch, group, lr, seed, shuffle }, settings, initial, async (row, weights) => {
      rollouts.set(`${shuffle}:${row.step}`, row);
      if (row.failed.count > 0) log(`step ${row.step}: ${row.failed.count} rollouts failed: ${row.failed.first}`);
      if (row.step % options.checkpointEvery !== 0 || row.step === steps) return;
      const scores = await run(curveTasks, weights);
      checkpointRuns.push(scores);
      checkpoints.set(`${shuffle}:${row.step}`, scores);
      const who = shuffle ? ' (control)' : '';
      log(`step ${row.step}${who}: held-out success on the curve ${pct(score(scores).success)}`);
    });
  const [trainedWeights, controlWeights] = await Promise.all([learn(false), learn(true)]);
  const [trained, control] = await Promise.all([run(heldOut, trainedWeights), run(heldOut, controlWeights)]);
  checkpoints.set(`false:${steps}`, onCurve(trained));
  checkpoints.set(`true:${steps}`, onCurve(control));
  log(`held-out success: trained ${pct(score(trained).success)}, control ${pct(score(control).success)}`);

  const reference = { random: score(onCurve(random)), heuristic: score(onCurve(heuristic)) };
  const heldOutAt = (step: number, shuffle: boolean) => {
    if (step === 0) return score(onCurve(untrained));
    const scores = checkpoints.get(`${shuffle}:${step}`);
    return scores && score(scores);
  };
  const row = (step: number): LearnerMetricsRow => {
    const [t, c] = [rollouts.get(`false:${step}`), rollouts.get(`true:${step}`)];
    const [ht, hc] = [heldOutAt(step, false), heldOutAt(step, true)];
    return {
      step,
      episodes: step * batch * group,
      rollout_success: t?.success ?? null,
      rollout_r_traj: t?.r_traj ?? null,
      control_rollout_success: c?.success ?? null,
      control_rollout_r_traj: c?.r_traj ?? null,
      heldout_success: ht?.success ?? null,
      heldout_r_traj: ht?.r_traj ?? null,
      control_heldout_success: hc?.success ?? null,
      control_heldout_r_traj: hc?.r_traj ?? null,
      random_success: ht ? reference.random.success : null,
      random_r_traj: ht ? reference.random.r_traj : null,
      heuristic_success: ht ? reference.heuristic.success : null,
      heuristic_r_traj: ht ? reference.heuristic.r_traj : null,
    };
  };
  const evaluations = [untrained, random, heuristicFresh, trained, control, ...checkpointRuns];
  const failedRuns = evaluations.flat().filter((s) => s.error !== undefined);
  if (failedRuns.length > 0) log(`${failedRuns.length} evaluation episodes failed: ${failedRuns[0]!.error}`);
  const failed = failedRuns.length + [...rollouts.values()].reduce((n, r) => n + r.failed.count, 0);
  return {
    seed: {
      seed,
      heldout_tasks: heldOut.length,
      train_tasks: split.train.length,
      heldout_apis: split.heldOutApis,
      heldout_apis_seen_in_training: split.heldOutApisSeenInTraining,
      failed_episodes: failed,
      scores: {
        untrained: score(untrained),
        trained: score(trained),
        control: score(control),
        random: score(random),
        heuristic: score(heuristic),
      },
      weights: { initial, trained: trainedWeights, control: controlWeights },
      curve: Array.from({ length: steps + 1 }, (_, step) => row(step)),
    },
    episodes: evaluations.reduce((n, scores) => n + scores.length, 0) + 2 * steps * batch * group,
  };
}

/** A policy's held-out numbers: the share solved and the mean R_traj (of the episodes the server scored). */
function score(scores: readonly TaskScore[]): HeldOutScore {
  const successes = scores.filter((s) => s.success === true).length;
  const rewards = scores.flatMap((s) => (s.r_traj === null ? [] : [s.r_traj]));
  const r_traj = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
  return { success: round(successes / Math.max(1, scores.length)), r_traj: round(r_traj), successes, n: scores.length };
}

const round = (value: number) => Math.round(value * 1e4) / 1e4;
const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
