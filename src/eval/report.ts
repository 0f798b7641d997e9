import type { AgentName } from '../agent/types.js';
import type { SystemPromptStyle } from '../wire/episodes.js';
import { STAT_METRICS, type AgentSummary, type StatMetric } from './aggregate.js';
import { isUnmappable, type EvalTask } from './map-references.js';
import type { AgentResult } from './run.js';
import { successSource } from './score.js';
import { referenceLabel, type TaskFormat } from './tasks.js';

/** Everything one `toolenv eval` measured: report.json as written, and what report.md renders. */
export interface EvalReport {
  created_at: string;
  /** The server's URL, with `(in-process: LIBRARY)` when eval started it. */
  server: string;
  task_file: string;
  format: TaskFormat;
  agents: AgentName[];
  policy: string;
  judge: string | null;
  runs: number;
  concurrency: number;
  max_turns: number | null;
  k: number | null;
  seed: number | null;
  error_rate: number | null;
  max_observation_chars: number | null;
  /** Absent in reports written before the option. */
  system_prompt?: SystemPromptStyle;
  tasks: {
    /** Tasks in the file. */
    total: number;
    /** Tasks run and scored: all but the unmappable ones. */
    scored: number;
    /** Tasks that name reference tools none of which is in the library: not run. */
    unmappable: { id: string; line: number; references: string[] }[];
    /**
     * Tasks run with some of their reference tools missing from the library: path and coverage count those as misses,
     * path_mapped and coverage_mapped leave them out.
     */
    partially_mapped: { id: string; line: number; unmapped: string[] }[];
    /**
     * Tasks run whose success nothing decides (no expected answer, no judge, no reference tool): left out of the
     * success means.
     */
    unscored: { id: string; line: number }[];
    /** Each task's `meta` from the task file, by task id, when any task has one. */
    meta?: Record<string, Record<string, unknown>>;
  };
  mapping: MappingCounts;
  results: AgentResult[];
}

export interface MappingCounts {
  references: number;
  by_id: number;
  exact: number;
  normalized: number;
  /**
   * Mapped references whose names matched more than one tool (the one in the named category, else the first, was
   * taken).
   */
  ambiguous: number;
  unmapped: number;
}

export function mappingCounts(tasks: readonly EvalTask[]): MappingCounts {
  const all = tasks.flatMap((t) => t.mapping);
  return {
    references: all.length,
    by_id: all.filter((m) => m.match === 'id').length,
    exact: all.filter((m) => m.match === 'exact').length,
    normalized: all.filter((m) => m.match === 'normalized').length,
    ambiguous: all.filter((m) => m.also !== undefined).length,
    unmapped: all.filter((m) => m.id === undefined).length,
  };
}

/**
 * The task section of the report: which tasks were not run, which ran without all their references, which are unscored.
 */
export function taskCounts(tasks: readonly EvalTask[], judged: boolean): EvalReport['tasks'] {
  const unmappable = tasks.filter(isUnmappable);
  const partial = tasks.filter((t) => !isUnmappable(t) && t.mapping.some((m) => m.id === undefined));
  const withMeta = tasks.filter((t) => t.meta !== undefined);
  const counts: EvalReport['tasks'] = {
    total: tasks.length,
    scored: tasks.length - unmappable.length,
    unmappable: unmappable.map((t) => ({
      id: t.task.id,
      line: t.line,
      references: t.mapping.map((m) => referenceLabel(m.reference)),
    })),
    partially_mapped: partial.map((t) => ({
      id: t.task.id,
      line: t.line,
      unmapped: t.mapping.filter((m) => m.id === undefined).map((m) => referenceLabel(m.reference)),
    })),
    unscored: tasks
      .filter((t) => !isUnmappable(t) && successSource(t, judged) === 'unscored')
      .map((t) => ({ id: t.task.id, line: t.line })),
  };
  if (withMeta.length > 0) counts.meta = Object.fromEntries(withMeta.map((t) => [t.task.id, t.meta!]));
  return counts;
}

/** The metrics a task-run may lack (no expected answer, no reference tool, no call): their counts go with them. */
export const PARTIAL_METRICS = [
  'success',
  'path',
  'path_mapped',
  'coverage',
  'coverage_mapped',
  'hit_rate',
  'r_step',
  'r_phase',
  'r_traj',
  'r_ans',
  'r_state',
  'state_success',
] as const satisfies readonly StatMetric[];

/** Metrics of write tasks alone (`expect`): left out of the summary line of an eval that ran none. */
const STATE_METRICS: ReadonlySet<StatMetric> = new Set(['r_state', 'state_success']);

/**
 * The `--json` summary line: `{tasks, runs, policy, agents: [...]}`, each agent `{agent, task_runs, success, path,
 * coverage, turns, actions_per_turn, tokens, wall_ms, …}` with each metric's mean, `scored: {metric: task-runs}`
 * saying how many task-runs each mean that may lack values stands on, and `std: {metric: …}` with several runs;
 * then the counts of unmappable and unscored tasks.
 */
export function summaryLine(report: EvalReport, out?: string): Record<string, unknown> {
  const perAgent = report.results.map(({ summary }) => {
    const line: Record<string, unknown> = { agent: summary.agent, task_runs: summary.task_runs };
    const metrics = STAT_METRICS.filter((m) => !STATE_METRICS.has(m) || summary.scored[m] > 0);
    for (const metric of metrics) line[metric] = round(summary.stats[metric].mean);
    line.scored = Object.fromEntries(
      PARTIAL_METRICS.filter((m) => metrics.includes(m)).map((metric) => [metric, summary.scored[metric]]),
    );
    line.finish = summary.finish;
    line.injected_errors_total = summary.injected_errors_total;
    line.by_tools = Object.fromEntries(
      Object.entries(summary.by_tools).map(([n, row]) => [
        n,
        { task_runs: row.task_runs, success: round(row.success), path: round(row.path), turns: round(row.turns) },
      ]),
    );
    if (report.runs > 1)
      line.std = Object.fromEntries(metrics.map((metric) => [metric, round(summary.stats[metric].std)]));
    return line;
  });
  const common = {
    unmappable: report.tasks.unmappable.length,
    unscored: report.tasks.unscored.length,
    judge: report.judge,
    seed: report.seed,
    ...(out ? { out } : {}),
  };
  // One shape whatever the number of agents, so that a script reading it does not break when an agent is added.
  return { tasks: report.tasks.scored, runs: report.runs, policy: report.policy, agents: perAgent, ...common };
}

/**
 * One agent's lines: the headline holds only means over every task-run that could have one; a mean that stands on
 * fewer (rewards without an expected answer or a judge, success of unscored tasks) says how many, or is left out.
 */
export function headline(summary: AgentSummary, partly: boolean): string[] {
  const s = summary.stats;
  const all = summary.task_runs;
  const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  const num = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));
  const mapped = (v: number | null) => (partly ? ` (mapped ${pct(v)})` : '');
  const of = (n: number) => (n === all ? '' : ` (${n} of ${all} scored)`);
  const rewards = `R_step ${num(s.r_step.mean)}  R_phase ${num(s.r_phase.mean)}  R_traj ${num(s.r_traj.mean)}`;
  const scored = summary.scored.r_traj;
  const lines = [
    `${summary.agent.padEnd(9)} success ${pct(s.success.mean)}${of(summary.scored.success)}  path ${pct(s.path.mean)}` +
      `${mapped(s.path_mapped.mean)}  coverage ${pct(s.coverage.mean)}${mapped(s.coverage_mapped.mean)}  turns ` +
      `${num(s.turns.mean)}  actions/turn ${num(s.actions_per_turn.mean)}  tokens ${num(s.tokens.mean, 0)}  wall ` +
      `${num(s.wall_ms.mean === null ? null : s.wall_ms.mean / 1000)} s${scored === all ? `  ${rewards}` : ''}`,
  ];
  if (scored === 0) {
    lines.push(`${' '.repeat(10)}rewards: none scored (R_ans needs an expected answer or --judge)`);
  } else if (scored < all) {
    lines.push(
      `${' '.repeat(10)}rewards on ${scored} of ${all} task-runs (the ` +
        `rest have no expected answer; --judge scores them): ${rewards}`,
    );
  }
  const written = summary.scored.r_state;
  if (written > 0)
    lines.push(
      `${' '.repeat(10)}world state on ${written} of ${all} task-runs (tasks with expect): r_state ` +
        `${num(s.r_state.mean)}  state_success ${pct(s.state_success.mean)}`,
    );
  return lines;
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10_000) / 10_000;
}
