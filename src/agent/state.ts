import type { SearchHit } from '../episodes/types.js';
import type { Tool } from '../library/tool.js';
import type { InjectedErrorKind } from '../simulator/types.js';
import type { ExecutionPlan, PlannedCall } from './protocol.js';
import type { CallOutput } from './references.js';

/** What one agent run has seen: kept by the client, rendered to the model as text, given to policies as data. */

export interface SearchOutcome {
  id: string;
  turn: number;
  query: string;
  k: number;
  results: SearchHit[];
}

export interface CallOutcome extends CallOutput {
  id: string;
  tool: string;
  turn: number;
  /** The arguments as sent, references bound. */
  arguments: Record<string, unknown>;
  ok: boolean;
  /** Set when the simulator injected the failure. */
  injected?: InjectedErrorKind;
  /** One line on why it failed, when it did. */
  error?: string;
  /** Sent with references left unresolved (the dependency-blind Parallel baseline). */
  unresolved?: boolean;
}

/** A requested call the client did not send this turn, and why. */
export interface NotRun {
  id: string;
  tool: string;
  turn: number;
  /**
   * `skipped`: an upstream call failed; `waiting`: an upstream call has no result yet; `deferred`: over the per-turn
   * cap; `unbound`: a reference does not resolve against the upstream result.
   */
  kind: 'skipped' | 'waiting' | 'deferred' | 'unbound';
  reason: string;
}

export type NodeStatus = 'pending' | 'done' | 'failed' | 'skipped';

export interface PlanNode extends PlannedCall {
  /** Edges declared and implied by references, within the plan. */
  deps: string[];
  status: NodeStatus;
}

/** The execution plan being followed (the paper's controller): its DAG, Kahn layers and each node's status. */
export interface PlanState {
  turn: number;
  plan: ExecutionPlan;
  layers: string[][];
  nodes: Map<string, PlanNode>;
}

export interface RunState {
  turn: number;
  /** Ids surfaced by search, in first-seen order. */
  surfaced: string[];
  /** The search hit each surfaced id first came with. */
  hits: Map<string, SearchHit>;
  /** Full records of surfaced tools (GET /v1/tools/{id}); a record that could not be fetched is absent. */
  tools: Map<string, Tool>;
  searches: SearchOutcome[];
  /** Every call sent, in order. */
  calls: CallOutcome[];
  /** The newest result of each call id: what references read. */
  results: Map<string, CallOutcome>;
  notRun: NotRun[];
  plan?: PlanState;
  /** Why the last message was rejected, when it was. */
  rejected?: string[];
}

export function newRunState(): RunState {
  return { turn: 0, surfaced: [], hits: new Map(), tools: new Map(), searches: [], calls: [], results: new Map(), notRun: [] };
}

/** A call is usable as an upstream when its newest result succeeded. */
export function succeeded(state: RunState, id: string): boolean {
  return state.results.get(id)?.ok === true;
}
