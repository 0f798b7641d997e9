import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line of RUN/episodes/*.jsonl, as python/src/toolenv/records.py writes it for every rollout. */
export interface EpisodeRecord {
  step: number;
  episode: string;
  r_step: number | null;
  r_phase: number | null;
  r_traj: number | null;
  r_ans: number | null;
  success: boolean | null;
  flagged?: string | null;
  turns: number;
  actions: number;
  tokens: number;
  time: number;
}

/** One optimizer step's log from the engine (TRL's trainer logs, verl's file logger), flattened. */
export interface TrainerLog {
  step: number;
  time?: number;
  [key: string]: unknown;
}

/** One line of RUN/metrics.jsonl for an SFT step: the engine's log alone. */
export interface SftStepMetrics {
  step: number;
  loss: number | null;
  grad_norm?: number;
  learning_rate?: number;
  tokens?: number;
  wall_s: number | null;
}

/** One line of RUN/metrics.jsonl for an RL step. */
export interface StepMetrics {
  step: number;
  episodes: number;
  r_step: number | null;
  r_phase: number | null;
  r_traj: number | null;
  r_ans: number | null;
  success: number | null;
  flagged: number;
  turns: number | null;
  actions_per_turn: number | null;
  tokens: number;
  wall_s: number | null;
  loss?: number;
  grad_norm?: number;
  learning_rate?: number;
  /** TRL: the share of groups whose rewards all tied (no advantage, nothing learned from them). */
  frac_reward_zero_std?: number;
}

const mean = (values: readonly (number | null | undefined)[]): number | null => {
  const known = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
};

const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 1e4) / 1e4);

/**
 * Per step: the rollouts' mean rewards, success (of the scored ones), turns, actions per turn and model tokens,
 * joined with the engine's own log of that step (loss, grad norm, learning rate); wall time from the end of the
 * step before (the run's start for the first).
 */
export function stepMetrics(
  records: readonly EpisodeRecord[],
  logs: readonly TrainerLog[],
  startedAt: number,
): StepMetrics[] {
  const byStep = new Map<number, { records: EpisodeRecord[]; log?: TrainerLog }>();
  const at = (step: number) => byStep.get(step) ?? byStep.set(step, { records: [] }).get(step)!;
  for (const record of records) at(record.step).records.push(record);
  for (const log of logs)
    if (Number.isInteger(log.step) && log.step > 0 && typeof log.loss === 'number') at(log.step).log = log;
  let previousEnd = startedAt;
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([step, { records: rs, log }]) => {
      const ends = [...rs.map((r) => r.time), ...(typeof log?.time === 'number' ? [log.time] : [])];
      const end = ends.length === 0 ? null : Math.max(...ends);
      const turns = rs.reduce((sum, r) => sum + r.turns, 0);
      const row: StepMetrics = {
        step,
        episodes: rs.length,
        r_step: round(mean(rs.map((r) => r.r_step))),
        r_phase: round(mean(rs.map((r) => r.r_phase))),
        r_traj: round(mean(rs.map((r) => r.r_traj))),
        r_ans: round(mean(rs.map((r) => r.r_ans))),
        success: round(mean(rs.map((r) => (r.success === null ? null : r.success ? 1 : 0)))),
        flagged: rs.filter((r) => r.flagged).length,
        turns: round(mean(rs.map((r) => r.turns))),
        actions_per_turn: turns === 0 ? null : round(rs.reduce((sum, r) => sum + r.actions, 0) / turns),
        tokens: rs.reduce((sum, r) => sum + r.tokens, 0),
        wall_s: end === null ? null : round(end - previousEnd),
      };
      if (end !== null) previousEnd = end;
      for (const key of ['loss', 'grad_norm', 'learning_rate', 'frac_reward_zero_std'] as const) {
        const value = log?.[key];
        if (typeof value === 'number') row[key] = value;
      }
      return row;
    });
}

/** Per SFT step: loss, gradient norm, learning rate, tokens seen (TRL's `num_tokens`) and wall time. */
export function sftMetrics(logs: readonly TrainerLog[], startedAt: number): SftStepMetrics[] {
  let previousEnd = startedAt;
  return logs
    .filter((log) => Number.isInteger(log.step) && log.step > 0 && typeof log.loss === 'number')
    .map((log) => {
      const end = typeof log.time === 'number' ? log.time : null;
      const row: SftStepMetrics = {
        step: log.step,
        loss: log.loss as number,
        wall_s: end === null ? null : round(end - previousEnd),
      };
      if (end !== null) previousEnd = end;
      if (typeof log.grad_norm === 'number') row.grad_norm = log.grad_norm;
      if (typeof log.learning_rate === 'number') row.learning_rate = log.learning_rate;
      if (typeof log.num_tokens === 'number') row.tokens = log.num_tokens;
      return row;
    });
}

/** Every complete JSON line of the files under `dir` (a line still being written is left for the next read). */
export function readJsonLines<T>(dir: string): T[] {
  if (!existsSync(dir)) return [];
  const out: T[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort())
    out.push(...linesOf<T>(join(dir, name)));
  return out;
}

/**
 * Steps an epoch takes when GRPO draws `promptsPerStep` prompts a step from a fixed set of `tasks` (every task once an
 * epoch), if `steps` hold two whole epochs or more; else undefined. Epochs then compare the same tasks, which steps
 * drawn anew cannot.
 */
export function epochSteps(tasks: number, promptsPerStep: number, steps: number): number | undefined {
  if (tasks <= 0 || tasks % promptsPerStep !== 0) return undefined;
  const epoch = tasks / promptsPerStep;
  return steps >= 2 * epoch ? epoch : undefined;
}

export function linesOf<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as T];
      } catch {
        return [];
      }
    });
}

/**
 * The engine's step logs of a run: TRL's trainer.jsonl, or verl's file logger (`{step, data}`) with its names mapped.
 */
export function trainerLogs(runDir: string): TrainerLog[] {
  const trl = linesOf<TrainerLog>(join(runDir, 'trainer.jsonl'));
  const verl = linesOf<{ step: number; data: Record<string, unknown> }>(join(runDir, 'verl.jsonl')).map(
    (line): TrainerLog => {
      const data = line.data ?? {};
      const pick = (...names: string[]) => names.map((n) => data[n]).find((v) => typeof v === 'number');
      return {
        step: line.step,
        loss: pick('actor/pg_loss', 'actor/loss'),
        grad_norm: pick('actor/grad_norm'),
        learning_rate: pick('actor/lr'),
      };
    },
  );
  return [...trl, ...verl];
}
