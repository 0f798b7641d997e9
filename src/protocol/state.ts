import type { SearchHit } from '../wire/episodes.js';
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
  return {
    turn: 0,
    surfaced: [],
    hits: new Map(),
    tools: new Map(),
    searches: [],
    calls: [],
    results: new Map(),
    notRun: [],
  };
}

/** A call is usable as an upstream when its newest result succeeded. */
export function succeeded(state: RunState, id: string): boolean {
  return state.results.get(id)?.ok === true;
}

/**
 * The run state as JSON (`POST /v1/episodes/{id}/turns` with `"state": true`): what the server's session holds,
 * for policies that read data rather than text. Tool records are left out (a client fetches the ones it needs);
 * `results` is left out too, being the newest call of each id.
 */
export interface RunStateView {
  turn: number;
  surfaced: string[];
  hits: SearchHit[];
  searches: SearchOutcome[];
  calls: CallOutcome[];
  notRun: NotRun[];
  plan?: { turn: number; plan: ExecutionPlan; layers: string[][]; nodes: PlanNode[] };
  rejected?: string[];
}

export function runStateView(state: RunState): RunStateView {
  const view: RunStateView = {
    turn: state.turn,
    surfaced: [...state.surfaced],
    hits: state.surfaced.map((id) => state.hits.get(id)!),
    searches: state.searches,
    calls: state.calls,
    notRun: state.notRun,
  };
  if (state.plan)
    view.plan = {
      turn: state.plan.turn,
      plan: state.plan.plan,
      layers: state.plan.layers,
      nodes: [...state.plan.nodes.values()],
    };
  if (state.rejected) view.rejected = state.rejected;
  return view;
}

/** A RunStateView back as a RunState, with the tool records a client fetched. */
export function fromRunStateView(view: RunStateView, tools: ReadonlyMap<string, Tool>): RunState {
  const state: RunState = {
    turn: view.turn,
    surfaced: [...view.surfaced],
    hits: new Map(view.hits.map((hit) => [hit.id, hit])),
    tools: new Map(tools),
    searches: view.searches,
    calls: view.calls,
    results: new Map(view.calls.map((call) => [call.id, call])),
    notRun: view.notRun,
  };
  if (view.plan)
    state.plan = {
      turn: view.plan.turn,
      plan: view.plan.plan,
      layers: view.plan.layers,
      nodes: new Map(view.plan.nodes.map((node) => [node.id, node])),
    };
  if (view.rejected) state.rejected = view.rejected;
  return state;
}
