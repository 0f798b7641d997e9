import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Checker, parseVerdicts } from './validate.js';
import { GRAPH_FILE, openGraph, type Graph } from '../graph/store.js';
import { createAnswerJudge } from '../rl/judge.js';
import { answerOutcome, scoreTrajectory, type Rewards } from '../rl/rewards.js';
import { readSavedRun, SavedRunError } from './saved-run.js';
import type { Verdicts } from '../wire/rewards.js';

export interface RescoreOptions {
  files: readonly string[];
  /** The library directory whose graph.db scores L2 and L3. */
  library: string;
  judge?: string;
  judgeApiKey?: string;
  /** JSON verdicts applied to every run. */
  verdicts?: string;
  onFile?: (file: string, rewards: Rewards) => void;
}

export interface RescoreSummary {
  files: number;
  flagged: number;
  graph: boolean;
  mean: {
    r_step: number | null;
    r_phase: number | null;
    r_traj: number | null;
    r_ans: number | null;
    /** Over the runs of tasks with `expect`, when there are any. */
    r_state?: number;
  };
  /** Runs of tasks with `expect` (when there are any), and how many of them held every assertion. */
  state?: { runs: number; succeeded: number };
}

/**
 * `toolenv reward`: every saved run scored by the same functions the server uses (rl/rewards.ts), so a run scores
 * offline exactly as it did live given the same graph and verdicts. All files are read and checked before any is
 * scored: a bad one (or bad verdicts) throws SavedRunError naming it, and nothing is half done.
 */
export async function rescore(options: RescoreOptions): Promise<RescoreSummary> {
  const verdicts = options.verdicts === undefined ? undefined : readVerdictsFlag(options.verdicts);
  const runs = options.files.map((file) => ({ file, trajectory: readSavedRun(file) }));
  const graph: Graph | undefined = existsSync(join(options.library, GRAPH_FILE))
    ? openGraph(options.library)
    : undefined;
  const judge =
    options.judge === undefined ? undefined : createAnswerJudge(options.judge, { apiKey: options.judgeApiKey });
  const scored: Rewards[] = [];
  try {
    for (const { file, trajectory } of runs) {
      const rewards = scoreTrajectory(trajectory, await answerOutcome(trajectory, { verdicts, judge }), graph);
      scored.push(rewards);
      options.onFile?.(file, rewards);
    }
  } finally {
    graph?.close();
  }
  const mean = (pick: (r: Rewards) => number | null | undefined) => {
    const values = scored.map(pick).filter((v): v is number => typeof v === 'number');
    return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
  };
  const stated = scored.filter((r) => r.r_state !== undefined);
  return {
    files: scored.length,
    flagged: scored.filter((r) => r.flagged !== undefined).length,
    graph: graph !== undefined,
    mean: {
      r_step: mean((r) => r.r_step),
      r_phase: mean((r) => r.r_phase),
      r_traj: mean((r) => r.r_traj),
      r_ans: mean((r) => r.r_ans),
      ...(stated.length > 0 ? { r_state: mean((r) => r.r_state)! } : {}),
    },
    ...(stated.length > 0
      ? { state: { runs: stated.length, succeeded: stated.filter((r) => r.state_success).length } }
      : {}),
  };
}

function readVerdictsFlag(text: string): Verdicts {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SavedRunError(
      '--verdicts must be JSON like {"quality": "YES", "faithfulness": "YES", "utility": "PARTIAL"}, got ' +
        `${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  const check = new Checker();
  const verdicts = parseVerdicts(value, '', check);
  if (!verdicts)
    throw new SavedRunError(
      `--verdicts: ${check.errors.map((e) => `${e.path.slice(1) || '(value)'} ${e.message}`).join('; ')}`,
    );
  return verdicts;
}
