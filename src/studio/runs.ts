import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { AgentRun } from '../agent/types.js';
import type { Trajectory } from '../wire/episodes.js';
import { trajectoryFile } from '../eval/files.js';
import type { EvalReport } from '../eval/report.js';
import type { TaskScore } from '../eval/score.js';
import type { TrainJson } from '../train/config.js';
import {
  epochSteps,
  linesOf,
  readJsonLines,
  sftMetrics,
  stepMetrics,
  trainerLogs,
  type EpisodeRecord,
  type SftStepMetrics,
  type StepMetrics,
} from '../train/metrics.js';
import type { Rewards } from '../rl/rewards.js';
import { LEARNER_METRICS, LEARNER_REPORT, type LearnerMetricsRow, type LearnerReport } from '../learner/run-file.js';

/**
 * The run directories `serve --runs DIR` shows: `toolenv eval --out` (report.json, trajectories/AGENT/*.json) and
 * `toolenv train --out` (train.json, metrics.jsonl, episodes/*.jsonl, trajectories/*.jsonl) and `toolenv bench
 * --learning --learner linear --out` (learner.json, metrics.jsonl; it keeps no episodes). DIR is one run, or
 * holds runs up to two levels down (runs/sft, runs/2026-12/rl). Everything is read from disk on each request, so a
 * run still being written shows what it has so far.
 */

export type RunKind = 'eval' | 'train' | 'learner';

export interface RunListing {
  /** The path below DIR, `/`-separated (DIR's own name when it is itself the run); the id in `/v1/runs/{name}`. */
  name: string;
  kind: RunKind;
  /** eval: the agents compared; train: the engine and stage; learner: the learner and its seeds. */
  label: string;
  modified_at: string;
}

export interface EvalRunView {
  name: string;
  kind: 'eval';
  report: EvalReport;
}

export interface TrainRunView {
  name: string;
  kind: 'train';
  /**
   * `tasks`: how many tasks a GRPO run draws its prompts from (RUN/tasks.jsonl); `epoch_steps`: the steps of an epoch
   * when it cycles through them and has run two epochs or more (`epochSteps`), else null.
   */
  config: Pick<
    TrainJson,
    'engine' | 'stage' | 'model' | 'steps' | 'group' | 'prompts_per_step' | 'seed' | 'episode'
  > & { tasks: number | null; epoch_steps: number | null };
  /** metrics.jsonl once the run has finished; before that, the same rows computed from what the run wrote so far. */
  metrics: (StepMetrics | SftStepMetrics)[];
  finished: boolean;
}

/** A learner run: its report (held-out summary, checks, per-seed results) and its curve, step by step. */
export interface LearnerRunView {
  name: string;
  kind: 'learner';
  report: LearnerReport;
  metrics: LearnerMetricsRow[];
}

export type RunView = EvalRunView | TrainRunView | LearnerRunView;

/** One episode of a run, as the episode list shows it. */
export interface RunEpisode {
  episode: string;
  task: string | null;
  /** eval: the agent; train: the step. */
  agent?: string;
  run?: number;
  step?: number;
  r_step: number | null;
  r_phase: number | null;
  r_traj: number | null;
  r_ans: number | null;
  success: boolean | null;
  turns: number;
}

/**
 * A saved episode: its trajectory, and its rewards as the run recorded them (eval) or unscored (train: the caller
 * rescores).
 */
export interface SavedEpisode {
  trajectory: Trajectory;
  rewards?: Rewards;
  /** What the run itself recorded of it (train's episode line). */
  record?: EpisodeRecord;
}

const MAX_DEPTH = 2;

export function runKind(dir: string): RunKind | undefined {
  if (existsSync(join(dir, 'report.json'))) return 'eval';
  if (existsSync(join(dir, 'train.json'))) return 'train';
  if (existsSync(join(dir, LEARNER_REPORT))) return 'learner';
  return undefined;
}

/** Every run under `root`, newest first. */
export function listRuns(root: string): RunListing[] {
  const listed = foundRuns(root).map(listing);
  return listed.sort((a, b) =>
    a.modified_at < b.modified_at ? 1 : a.modified_at > b.modified_at ? -1 : a.name.localeCompare(b.name),
  );
}

interface FoundRun {
  name: string;
  kind: RunKind;
  dir: string;
}

/** The run directories under `root`, found by their marker files alone (nothing is parsed). */
function foundRuns(root: string): FoundRun[] {
  const found: FoundRun[] = [];
  const visit = (dir: string, depth: number) => {
    const kind = runKind(dir);
    if (kind) {
      found.push({ name: dir === root ? basename(root) : relative(root, dir).split(sep).join('/'), kind, dir });
      return;
    }
    if (depth >= MAX_DEPTH) return;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name);
    } catch {
      return;
    }
    for (const name of names.sort()) visit(join(dir, name), depth + 1);
  };
  visit(root, 0);
  return found;
}

/** The directory of a run, or undefined: only the runs found are opened, so no name reaches outside `root`. */
export function runDir(root: string, name: string): string | undefined {
  return foundRuns(root).find((run) => run.name === name)?.dir;
}

export function readRun(root: string, name: string): RunView | undefined {
  const dir = runDir(root, name);
  if (!dir) return undefined;
  const kind = runKind(dir);
  if (kind === 'eval') return { name, kind: 'eval', report: readJson<EvalReport>(join(dir, 'report.json')) };
  if (kind === 'learner') {
    const report = readJson<LearnerReport>(join(dir, LEARNER_REPORT));
    return { name, kind: 'learner', report, metrics: linesOf<LearnerMetricsRow>(join(dir, LEARNER_METRICS)) };
  }
  const config = readJson<TrainJson>(join(dir, 'train.json'));
  const finished = existsSync(join(dir, 'metrics.jsonl'));
  let metrics: (StepMetrics | SftStepMetrics)[];
  if (finished) metrics = linesOf(join(dir, 'metrics.jsonl'));
  else {
    // The CLI writes train.json as it starts the run: its time stands in for the start the finished run records.
    const started = statSync(join(dir, 'train.json')).mtimeMs / 1000;
    metrics =
      config.stage === 'rl'
        ? stepMetrics(readJsonLines<EpisodeRecord>(join(dir, 'episodes')), trainerLogs(dir), started)
        : sftMetrics(trainerLogs(dir), started);
  }
  const { engine, stage, model, steps, group, prompts_per_step, seed, episode } = config;
  const tasks = stage === 'rl' ? countLines(join(dir, 'tasks.jsonl')) : null;
  const epoch_steps = tasks === null ? null : (epochSteps(tasks, prompts_per_step, metrics.length) ?? null);
  return {
    name,
    kind: 'train',
    config: { engine, stage, model, steps, group, prompts_per_step, seed, episode, tasks, epoch_steps },
    metrics,
    finished,
  };
}

/** The records of a JSON Lines file, counted without parsing them; null when there is no file. */
function countLines(file: string): number | null {
  if (!existsSync(file)) return null;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

export function runEpisodes(root: string, name: string): RunEpisode[] | undefined {
  const dir = runDir(root, name);
  if (!dir) return undefined;
  if (runKind(dir) === 'learner') return [];
  if (runKind(dir) === 'eval') {
    const report = readJson<EvalReport>(join(dir, 'report.json'));
    return report.results.flatMap((result) => result.scores.filter((s) => s.episode_id !== null).map(evalEpisode));
  }
  return readJsonLines<EpisodeRecord & { task?: string | null }>(join(dir, 'episodes')).map((r) => ({
    episode: r.episode,
    task: r.task ?? null,
    step: r.step,
    r_step: r.r_step,
    r_phase: r.r_phase,
    r_traj: r.r_traj,
    r_ans: r.r_ans,
    success: r.success,
    turns: r.turns,
  }));
}

/** One episode of a run by its id, or undefined when the run has none such (or kept no trajectory of it). */
export function runEpisode(root: string, name: string, episodeId: string): SavedEpisode | undefined {
  const dir = runDir(root, name);
  if (!dir || runKind(dir) === 'learner') return undefined;
  if (runKind(dir) === 'eval') {
    const report = readJson<EvalReport>(join(dir, 'report.json'));
    const score = report.results.flatMap((r) => r.scores).find((s) => s.episode_id === episodeId);
    const file = score && trajectoryFile(dir, score);
    if (!file || !existsSync(file)) return undefined;
    const run = readJson<AgentRun>(file);
    return run.trajectory && { trajectory: run.trajectory, ...(run.rewards ? { rewards: run.rewards } : {}) };
  }
  const trajectory = readJsonLines<Trajectory & { step: number }>(join(dir, 'trajectories')).find(
    (t) => t.id === episodeId,
  );
  if (!trajectory) return undefined;
  const record = readJsonLines<EpisodeRecord>(join(dir, 'episodes')).find((r) => r.episode === episodeId);
  return { trajectory, ...(record ? { record } : {}) };
}

function evalEpisode(score: TaskScore): RunEpisode {
  return {
    episode: score.episode_id!,
    task: score.task_id,
    agent: score.agent,
    run: score.run,
    r_step: score.r_step,
    r_phase: score.r_phase,
    r_traj: score.r_traj,
    r_ans: score.r_ans,
    success: score.success,
    turns: score.turns,
  };
}

function listing({ name, kind, dir }: FoundRun): RunListing {
  const file = join(dir, kind === 'eval' ? 'report.json' : kind === 'learner' ? LEARNER_REPORT : 'train.json');
  let label: string = kind;
  try {
    if (kind === 'eval') label = `eval: ${readJson<EvalReport>(file).agents.join(', ')}`;
    else if (kind === 'learner') {
      const report = readJson<LearnerReport>(file);
      label = `${report.learner} learner, ${report.seeds.length} seeds`;
    } else {
      const config = readJson<TrainJson>(file);
      label = `${config.engine} ${config.stage}`;
    }
  } catch {
    // A file still being written: listed by its kind alone until it parses.
  }
  const modified = statSync(existsSync(join(dir, 'metrics.jsonl')) ? join(dir, 'metrics.jsonl') : file).mtime;
  return { name, kind, label, modified_at: modified.toISOString() };
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}
