import type { RunState } from '../protocol/state.js';
import type { CriticLabels, DagCall, PlannerOutput, SharedState } from './types.js';

export interface PlannerInput {
  state: SharedState;
  /** The episode's run state as the server reports it (what ToolEnv returned, ran and holds in force). */
  run: RunState;
  round: number;
  /** Set on a repair call: the DAG that failed validation and why. */
  repair?: { dag: DagCall[]; errors: string[] };
}

export interface ExecutorInput {
  state: SharedState;
  /** The ready calls of one topological level. */
  level: DagCall[];
}

export interface CriticInput {
  state: SharedState;
  run: RunState;
  /** Tool ids retrieved this round (Exploration, slot-based Refine) or call ids observed (Execution, DAG Refine). */
  retrieved?: string[];
  observed?: string[];
}

export interface Answer {
  reasoning: string;
  answer: string;
}

/**
 * The five agents as functions of SharedState. The Retriever is ToolEnv's own search (one query per slot, top-k), so
 * it needs no model; the others are model calls (roles-model.ts) or the deterministic offline roles
 * (roles-offline.ts). A role that cannot answer in its schema throws RoleError: the round records it and the
 * quality filter rejects the trajectory.
 */
export interface Roles {
  planner(input: PlannerInput): Promise<PlannerOutput>;
  /** Arguments for each call of the level, by call id (references allowed; the server binds them). */
  executor(input: ExecutorInput): Promise<Record<string, Record<string, unknown>>>;
  critic(input: CriticInput): Promise<CriticLabels>;
  answerer(state: SharedState): Promise<Answer>;
}

export class RoleError extends Error {
  constructor(
    readonly role: keyof Roles,
    message: string,
  ) {
    super(`${role}: ${message}`);
    this.name = 'RoleError';
  }
}
