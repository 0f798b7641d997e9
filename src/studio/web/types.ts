/** The shapes the studio reads: the wire's from schemas/ (type-only imports), the rest a subset of eval's, train's. */

// The wire shapes, from the published schemas (scripts/wire-types.mjs): the studio reads what the server sends.
export type {
  Edge,
  EpisodeSummary,
  Observation,
  PhaseScore,
  Rewards,
  SearchHit,
  StateAssertion,
  StateCheck,
  Tool,
  ToolCallObservation,
  ToolPage,
  ToolSummary,
  Trajectory,
  TrajectoryStep,
  TurnPlan,
  TurnRecord,
} from '../../wire/schema-types.js';

export type Json = Record<string, unknown>;
export type Schema = Json | boolean;

export interface RunListing {
  name: string;
  kind: 'eval' | 'train' | 'learner';
  label: string;
  modified_at: string;
}

export type StepRow = Json & { step: number };

export interface Stat {
  mean: number | null;
  std: number | null;
}

export interface AgentResult {
  summary: { agent: string; tasks: number; runs: number; stats: Record<string, Stat>; finish: Record<string, number> };
  scores: Json[];
}

export type RunView =
  | {
      name: string;
      kind: 'eval';
      report: {
        created_at: string;
        policy: string;
        agents: string[];
        runs: number;
        tasks: { total: number; scored: number };
        results: AgentResult[];
      };
    }
  | {
      name: string;
      kind: 'train';
      config: Json & {
        engine: string;
        stage: string;
        model: string;
        steps: number;
        tasks: number | null;
        epoch_steps: number | null;
      };
      metrics: StepRow[];
      finished: boolean;
    }
  | { name: string; kind: 'learner'; report: LearnerReport; metrics: StepRow[] };

/** A policy's held-out numbers in a learner run (src/learner/run-file.ts). */
export interface PolicySummary {
  success: number;
  r_traj: number;
  spread: { success: number | null; r_traj: number | null };
  pooled: { successes: number; n: number; low: number; high: number };
}

export interface LearnerReport {
  learner: string;
  policy: string;
  wall_s: number;
  seeds: number[];
  episodes: number;
  episodes_per_s: number;
  server_share: number;
  heldout_tasks: number;
  heldout_apis_seen_in_training: number;
  settings: { steps: number; batch: number; group: number; lr: number; curve_tasks: number };
  summary: Record<string, PolicySummary>;
  checks: Record<'learned' | 'control_flat', { difference: number; threshold: number; passed: boolean }>;
}

export interface RunEpisode {
  episode: string;
  task: string | null;
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
