/** The shapes the studio reads from the API (a subset of src/wire/episodes.ts, src/rl, src/eval, src/train). */

export type Json = Record<string, unknown>;
export type Schema = Json | boolean;

export interface ToolSummary {
  id: string;
  name: string;
  /** Absent in search hits. */
  description?: string;
  category: string;
  score?: number;
}

export interface Tool extends ToolSummary {
  description: string;
  parameters: Json & { properties?: Record<string, Schema>; required?: string[] };
  bindings?: Record<string, { in: string; name: string }>;
  response_status?: number;
  response_schema?: Schema;
  examples: { name?: string; status: number; body: unknown }[];
  origin: Json & { format: string };
}

export interface Edge {
  src: string;
  dst: string;
  kind: string;
  rule: string;
  score: number;
  evidence: unknown;
}

export interface EpisodeSummary {
  id: string;
  seed: number;
  protocol: string;
  max_turns: number;
  finish?: string;
  answer?: string;
  group?: string;
  task?: { id: string; query: string; reference_tools?: string[]; answer?: string | string[] };
  created_at: string;
  done: boolean;
  working_set: string[];
  counts: {
    turns: number;
    steps: number;
    actions: number;
    searches: number;
    calls: number;
    failed_calls: number;
    injected_errors: number;
  };
}

export interface TurnPlan {
  phase?: 'exploration' | 'execution';
  valid: boolean;
  repeated: boolean;
  accepted: boolean;
  tools?: string[];
  calls?: { id: string; tool: string; depends_on: string[] }[];
  layers?: string[][];
  slots?: string[];
}

export interface TurnRecord {
  turn: number;
  text: string;
  well_formed: boolean;
  controller: string;
  plan?: TurnPlan;
  rejected?: string[];
  step?: number;
  searches: { id: string; query: string; results: string[] }[];
  calls: { id: string; tool: string; status: number; ok: boolean; injected?: string }[];
  not_run: { id: string; tool: string; kind: string; reason: string }[];
  answer?: string;
  observation: string;
}

export interface Observation {
  type: 'tool_call' | 'search_tool';
  id?: string;
  tool?: string;
  status?: number;
  source?: string;
  error?: string;
  state?: string;
  body?: unknown;
}

export interface TrajectoryStep {
  step: number;
  actions: (Json & { type: string; tool?: string; arguments?: Json })[];
  observations: Observation[];
}

export interface Trajectory extends EpisodeSummary {
  steps: TrajectoryStep[];
  turns: TurnRecord[];
}

export interface PhaseScore {
  turns: number[];
  l1: boolean;
  l2: boolean | null;
  l3: boolean | null;
  l4_ratio: number;
  score: number;
}

export interface Rewards {
  r_step: number | null;
  r_step_note?: string;
  r_phase: number | null;
  r_traj: number | null;
  r_ans: number | null;
  gate: number | null;
  flagged?: string;
  answer_source: string;
  verdicts?: { quality: string; faithfulness: string; utility: string };
  pattern?: string;
  success: boolean | null;
  steps: { turn: number; state: string; r_base: number; r_plan: number }[];
  phases: PhaseScore[];
  recall: { search: number | null; call: number | null };
  graph: boolean;
  judge?: Json;
  coefficients: Record<string, number>;
}

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
