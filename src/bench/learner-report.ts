import { COMPARED, type Compared, type LearnerMetricsRow, type LearnerReport } from '../learner/run-file.js';
import type { PolicySummary, SeedResult } from '../learner/run-file.js';

/** The held-out numbers of a learner run: means over seeds, spreads, pooled intervals, the fixed comparisons. */

/** Per policy: the seeds' means, their sample standard deviation, the pooled proportion's 95% Wilson interval. */
export function summarize(runs: readonly SeedResult[]): Record<Compared, PolicySummary> {
  return Object.fromEntries(
    COMPARED.map((policy) => {
      const scores = runs.map((r) => r.scores[policy]);
      const successes = scores.reduce((n, s) => n + s.successes, 0);
      const n = scores.reduce((sum, s) => sum + s.n, 0);
      const [success, r_traj] = [scores.map((s) => s.success), scores.map((s) => s.r_traj)];
      const summary: PolicySummary = {
        success: round(mean(success)),
        r_traj: round(mean(r_traj)),
        spread: { success: roundOrNull(sd(success)), r_traj: roundOrNull(sd(r_traj)) },
        pooled: { successes, n, ...wilson(successes, n) },
      };
      return [policy, summary];
    }),
  ) as Record<Compared, PolicySummary>;
}

/**
 * The comparisons, fixed before any run: the trained policy's held-out success above the untrained one's by more
 * than three standard deviations across seeds (the larger of the two), and the control's within one of it.
 */
export function checks(summary: Record<Compared, PolicySummary>): LearnerReport['checks'] {
  const spread = (a: Compared, b: Compared) => Math.max(summary[a].spread.success ?? 0, summary[b].spread.success ?? 0);
  const learned = summary.trained.success - summary.untrained.success;
  const control = summary.control.success - summary.untrained.success;
  const learnedThreshold = 3 * spread('trained', 'untrained');
  const controlThreshold = spread('control', 'untrained');
  return {
    learned: { difference: round(learned), threshold: round(learnedThreshold), passed: learned > learnedThreshold },
    control_flat: {
      difference: round(control),
      threshold: round(controlThreshold),
      passed: Math.abs(control) <= controlThreshold,
    },
  };
}

/** The seeds' curves, step by step: each value the mean over the seeds that have it. */
export function meanCurve(runs: readonly SeedResult[]): LearnerMetricsRow[] {
  const steps = Math.min(...runs.map((r) => r.curve.length));
  return Array.from({ length: steps }, (_, i) => {
    const rows = runs.map((r) => r.curve[i]!);
    const row = { ...rows[0]! };
    for (const key of Object.keys(row) as (keyof LearnerMetricsRow)[]) {
      if (key === 'step' || key === 'episodes') continue;
      const known = rows.map((r) => r[key]).filter((v): v is number => v !== null);
      (row as Record<string, number | null>)[key] = known.length === 0 ? null : round(mean(known));
    }
    return row;
  });
}

/** 95% Wilson score interval of a proportion. */
export function wilson(successes: number, n: number, z = 1.96): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = successes / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return { low: round(Math.max(0, centre - half)), high: round(Math.min(1, centre + half)) };
}

/** The report as the text table and the lines under it. */
export function reportLines(report: LearnerReport): string[] {
  const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  const num = (v: number | null) => (v === null ? '–' : v.toFixed(3));
  const { settings: s, checks: c } = report;
  const row = ([name, p]: [string, PolicySummary]) => {
    const interval = `${pct(p.pooled.low)}–${pct(p.pooled.high)} (${p.pooled.successes}/${p.pooled.n})`;
    const cells = [name, pct(p.success), pct(p.spread.success), interval, num(p.r_traj), num(p.spread.r_traj)];
    return `| ${cells.join(' | ')} |`;
  };
  return [
    'learner linear: a log-linear policy (softmax over linear scores of generic features), NOT a language model; ' +
      `${report.seeds.length} seeds, ${report.heldout_tasks} held-out tasks each on APIs no training task uses ` +
      `(${report.heldout_apis_seen_in_training} seen in training)`,
    `training per seed and learner: ${s.steps} steps × ${s.batch} groups × ${s.group} rollouts, lr ${s.lr}, ` +
      "the server's group advantages; the control's moved to another group of the batch before each update",
    '| policy (held-out, greedy) | success | ±sd | 95% interval, pooled | R_traj | ±sd |',
    '|---|---:|---:|---|---:|---:|',
    ...Object.entries(report.summary).map(row),
    `trained − untrained: ${pct(c.learned.difference)} against 3 sd = ${pct(c.learned.threshold)}: ` +
      (c.learned.passed ? 'learned' : 'NOT shown'),
    `control − untrained: ${pct(c.control_flat.difference)} against 1 sd = ${pct(c.control_flat.threshold)}: ` +
      (c.control_flat.passed ? 'flat' : 'NOT flat'),
    `${report.episodes} episodes (${report.failed_episodes} failed) in ${report.wall_s} s ` +
      `(${report.episodes_per_s} episodes/s; task synthesis ${report.synth_s} s); CPU over wall: server ` +
      `${pct(report.server_share)}, learner and its client ${pct(report.learner_share)}; run in ${report.out}`,
  ];
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function sd(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const m = mean(values);
  return Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1));
}

function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : round(value);
}
