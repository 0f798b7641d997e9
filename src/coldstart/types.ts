import type { ChatRow } from '../chat/export.js';
import type { CallOutcome } from '../protocol/state.js';
import type { SearchHit } from '../wire/episodes.js';
import type { TrainTask } from '../train/tasks.js';

/** The Planner's four modes (Appendix B.1); each routes the round to its agents. */
export type Mode = 'exploration' | 'execution' | 'refine' | 'answer';
export const MODES: readonly Mode[] = ['exploration', 'execution', 'refine', 'answer'];

export interface SlotSpec {
  capability: string;
  query: string;
  /** Tools to retrieve for it; default the server's top-k (3). A Refine may search wider. */
  k?: number;
}

/** A node of the Planner's execution DAG: arguments may hold data-flow references (`{"$ref": "c1.body.id"}`). */
export interface DagCall {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
  depends_on?: string[];
}

export interface PlannerOutput {
  mode: Mode;
  reasoning: string;
  slots?: SlotSpec[];
  dag?: DagCall[];
}

export type Label = 'relevant' | 'irrelevant';

/** The Critic's binary labels (no "uncertain"), by tool id and by call id, with its reasoning. */
export interface CriticLabels {
  reasoning: string;
  tools: Record<string, Label>;
  observations: Record<string, Label>;
}

/** Derived from the labels by the control loop, never by a model (B.1). */
export interface Coverage {
  /** The round's work is complete: every slot searched, or every DAG call run. */
  done: boolean;
  /** Every capability has a relevant, successful observation. */
  can_answer: boolean;
  missing_capabilities: string[];
}

export interface StateSlot extends SlotSpec {
  /** Tools retrieved for it, in rank order. */
  retrieved: string[];
}

/**
 * SharedState: what every agent reads and only the control loop writes. Tools and observations carry the Critic's
 * labels; `feedback` is the last Critic verdict, folded into the next Planner turn's <think>.
 */
export interface SharedState {
  task: TrainTask;
  slots: StateSlot[];
  tools: Map<string, { hit: SearchHit; slot: number; label?: Label }>;
  dag?: DagCall[];
  observations: (CallOutcome & { label?: Label })[];
  coverage: Coverage;
  feedback?: string;
}

/** What a round did, kept for the quality filter and the statistics. */
export interface RoundRecord {
  round: number;
  mode: Mode;
  reasoning: string;
  slots?: SlotSpec[];
  dag?: DagCall[];
  /** Planner calls spent repairing a DAG that failed validation (at most two). */
  repairs: number;
  /** Why the DAG still failed validation after the repairs. */
  dag_errors?: string[];
  critic?: { labels: CriticLabels; coverage: Coverage };
  /** A Refine round with neither slots nor a DAG: counted by the stall guard. */
  stalled?: boolean;
  /** A role whose output could not be read (its JSON or its shape), with why. */
  invalid?: string[];
}

export interface ColdStartRun {
  task_id: string;
  seed: number;
  episode_id: string;
  /** The single-agent conversation: system, task, then assistant turns and the observations ToolEnv answered. */
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  rounds: RoundRecord[];
  /** Turns the server rejected (their reasons), which no accepted trajectory has. */
  rejected_turns: string[][];
  finish: 'answer' | 'turn_cap' | 'episode_done' | 'error';
  exit: 'answer' | 'covered' | 'stall' | 'round_cap';
  /** For a task with an expected answer: whether the final answer met it (the rewards' `success`). */
  solved?: boolean;
  /** With `chatRows`: the run as a chat row, or why it could not be one. */
  chat?: ChatRow | { skipped: string };
  error?: string;
}
