import type { Weights } from './linear.js';

/**
 * A learner run directory, as `toolenv bench --learning --learner linear` writes it and the studio reads it:
 * `learner.json` (the report) and `metrics.jsonl` (the curve, one row per training step).
 */
export const LEARNER_REPORT = 'learner.json';
export const LEARNER_METRICS = 'metrics.jsonl';

/** The policies compared on the held-out tasks. */
export const COMPARED = ['untrained', 'trained', 'control', 'random', 'heuristic'] as const;
export type Compared = (typeof COMPARED)[number];

/** One policy on one seed's held-out tasks. */
export interface HeldOutScore {
  success: number;
  r_traj: number;
  /** Tasks solved, of `n`: what the pooled intervals count. */
  successes: number;
  n: number;
}

/** One policy over the seeds: the means, their sample standard deviation, the pooled proportion's Wilson interval. */
export interface PolicySummary {
  success: number;
  r_traj: number;
  spread: { success: number | null; r_traj: number | null };
  pooled: { successes: number; n: number; low: number; high: number };
}

/**
 * One training step (0: before any), means over seeds. `rollout_*`: that step's training rollouts (sampled);
 * `heldout_*`: greedy on the curve's held-out tasks, at checkpoints only (null between), the random and heuristic
 * policies on the same tasks beside them. `control_*`: the shuffled-reward control, the same learner with its
 * advantages permuted.
 */
export interface LearnerMetricsRow {
  step: number;
  /** Training rollouts of one learner so far, per seed. */
  episodes: number;
  rollout_success: number | null;
  rollout_r_traj: number | null;
  control_rollout_success: number | null;
  control_rollout_r_traj: number | null;
  heldout_success: number | null;
  heldout_r_traj: number | null;
  control_heldout_success: number | null;
  control_heldout_r_traj: number | null;
  random_success: number | null;
  random_r_traj: number | null;
  heuristic_success: number | null;
  heuristic_r_traj: number | null;
}

export interface SeedResult {
  seed: number;
  heldout_tasks: number;
  train_tasks: number;
  heldout_apis: number;
  /** Held-out APIs among the training tasks' APIs: 0 by construction, counted all the same. */
  heldout_apis_seen_in_training: number;
  /** Episodes whose run failed in the client (a turn never answered): their numbers stop where they failed. */
  failed_episodes: number;
  scores: Record<Compared, HeldOutScore>;
  weights: { initial: Weights; trained: Weights; control: Weights };
  curve: LearnerMetricsRow[];
}

export interface LearnerReport {
  learner: 'linear';
  /** What the policy is, in words: it is not a language model. */
  policy: string;
  wall_s: number;
  seeds: number[];
  episodes: number;
  episodes_per_s: number;
  /** The server process's CPU seconds over the run's wall seconds. */
  server_share: number;
  /** This process's (the learner's and its HTTP client's) CPU seconds over the run's wall seconds. */
  learner_share: number;
  /** Seconds synthesizing the task pool (before any episode). */
  synth_s: number;
  heldout_tasks: number;
  heldout_apis_seen_in_training: number;
  /** Episodes that failed in the client, over every seed; 0 in a sound run. */
  failed_episodes: number;
  settings: {
    pool: number;
    tools: string;
    steps: number;
    batch: number;
    group: number;
    lr: number;
    k: number;
    max_turns: number;
    checkpoint_every: number;
    curve_tasks: number;
  };
  summary: Record<Compared, PolicySummary>;
  /** The comparisons fixed before the run, and how they came out. */
  checks: {
    learned: { difference: number; threshold: number; passed: boolean };
    control_flat: { difference: number; threshold: number; passed: boolean };
  };
  features: Record<keyof Weights, readonly string[]>;
  runs: SeedResult[];
  out: string;
}
