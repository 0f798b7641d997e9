import type { AgentName, Finish } from '../agent/types.js';
import type { TaskScore } from './score.js';

/**
 * A metric over the task-runs: the mean of the per-run values and, with several runs, their sample standard deviation.
 */
export interface Stat {
  mean: number | null;
  std: number | null;
}

export const STAT_METRICS = [
  'success',
  'path',
  'path_mapped',
  'coverage',
  'coverage_mapped',
  'hit_rate',
  'turns',
  'actions',
  'actions_per_turn',
  'well_formed',
  'searches',
  'calls',
  'tokens',
  'prompt_tokens',
  'completion_tokens',
  'wall_ms',
  'injected_errors',
  'failed_calls',
  'r_step',
  'r_phase',
  'r_traj',
  'r_ans',
  'r_state',
  'state_success',
] as const;
export type StatMetric = (typeof STAT_METRICS)[number];

export interface AgentSummary {
  agent: AgentName;
  /** Tasks scored per run. */
  tasks: number;
  runs: number;
  /** Task-runs over all runs. */
  task_runs: number;
  stats: Record<StatMetric, Stat>;
  /**
   * Task-runs each metric stands on: a reward needs R_ans, so a task with no expected answer and no judge has none,
   * and its means are over the others alone.
   */
  scored: Record<StatMetric, number>;
  /** Task-runs by how they ended, over all runs. */
  finish: Record<Finish, number>;
  /** Task-runs whose success the answer checker, the judge or the fallback rule decided, and those left unscored. */
  success_by: Record<TaskScore['success_by'], number>;
  injected_errors_total: number;
  /**
   * Success, path and turns by the number of reference tools a task names (the strata of synthesized tasks), over all
   * runs.
   */
  by_tools: Record<string, { task_runs: number; success: number | null; path: number | null; turns: number }>;
}

/**
 * Per run: success, path, coverage, hit rate are means over the tasks that have a value (success needs a way to
 * decide it, path and coverage need reference tools); turns, actions, tokens, wall time, errors are means per task;
 * actions per turn is the run's actions over its turns. Then the mean over runs, and the sample standard deviation when
 * there are several.
 */
export function summarize(agent: AgentName, scores: readonly TaskScore[], runs: number): AgentSummary {
  const byRun = Array.from({ length: runs }, (_, i) => scores.filter((s) => s.run === i + 1));
  const perRun = (metric: StatMetric) =>
    byRun.map((list) => runValue(list, metric)).filter((v): v is number => v !== null);
  const stats = Object.fromEntries(STAT_METRICS.map((metric) => [metric, stat(perRun(metric))])) as Record<
    StatMetric,
    Stat
  >;
  const scored = Object.fromEntries(STAT_METRICS.map((metric) => [metric, scoredRuns(scores, metric)])) as Record<
    StatMetric,
    number
  >;
  const finish: Record<Finish, number> = { answer: 0, turn_cap: 0, episode_done: 0, error: 0 };
  const success_by: AgentSummary['success_by'] = { answer: 0, state: 0, judge: 0, fallback: 0, unscored: 0 };
  for (const s of scores) {
    finish[s.finish]++;
    success_by[s.success_by]++;
  }
  return {
    agent,
    tasks: byRun[0]?.length ?? 0,
    runs,
    task_runs: scores.length,
    stats,
    scored,
    finish,
    success_by,
    injected_errors_total: scores.reduce((n, s) => n + s.injected_errors, 0),
    by_tools: byTools(scores),
  };
}

function byTools(scores: readonly TaskScore[]): AgentSummary['by_tools'] {
  const groups = new Map<number, TaskScore[]>();
  for (const s of scores) {
    const list = groups.get(s.references);
    if (list) list.push(s);
    else groups.set(s.references, [s]);
  }
  const mean = (values: (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length === 0 ? null : sum(known) / known.length;
  };
  return Object.fromEntries(
    [...groups]
      .sort(([a], [b]) => a - b)
      .map(([n, list]) => [
        String(n),
        {
          task_runs: list.length,
          success: mean(list.map((s) => (s.success === null ? null : Number(s.success)))),
          path: mean(list.map((s) => s.path)),
          turns: sum(list.map((s) => s.turns)) / list.length,
        },
      ]),
  );
}

/** Task-runs with a value of the metric; the per-turn ratios stand on the task-runs that took a turn. */
function scoredRuns(scores: readonly TaskScore[], metric: StatMetric): number {
  if (metric === 'actions_per_turn' || metric === 'well_formed') return scores.filter((s) => s.turns > 0).length;
  if (metric === 'success') return scores.filter((s) => s.success !== null).length;
  // r_state and state_success are absent for tasks without `expect`.
  return scores.filter((s) => (s[metric] ?? null) !== null).length;
}

function runValue(list: readonly TaskScore[], metric: StatMetric): number | null {
  if (metric === 'actions_per_turn') {
    const turns = sum(list.map((s) => s.turns));
    return turns === 0 ? null : sum(list.map((s) => s.actions)) / turns;
  }
  if (metric === 'well_formed') {
    const turns = sum(list.map((s) => s.turns));
    return turns === 0 ? null : sum(list.map((s) => s.well_formed_turns)) / turns;
  }
  const values = list
    .map((s) => {
      const value = s[metric as Exclude<StatMetric, 'well_formed' | 'actions_per_turn'>];
      return typeof value === 'boolean' ? Number(value) : value;
    })
    .filter((v): v is number => typeof v === 'number');
  return values.length === 0 ? null : sum(values) / values.length;
}

export function stat(values: readonly number[]): Stat {
  if (values.length === 0) return { mean: null, std: null };
  const mean = sum(values) / values.length;
  if (values.length < 2) return { mean, std: null };
  const variance = sum(values.map((v) => (v - mean) ** 2)) / (values.length - 1);
  return { mean, std: Math.sqrt(variance) };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
