import type { Action, Observation, Protocol, SearchAction, StepResult, ToolCallAction } from '../wire/episodes.js';
import { untouchedBodyText, withStoredBody } from '../simulator/stored-result.js';
import type { Checked } from './check.js';
import type { ParsedMessage, SearchRequest } from './protocol.js';
import { bindRefs, findRefs, referencedCalls, RefError, type CallOutput } from './references.js';
import type { CallOutcome, NotRun, PlanNode, RunState, SearchOutcome } from './state.js';

/** One turn's actions, ready for one episode step, and what was held back. */
export interface Dispatch {
  actions: Action[];
  notRun: NotRun[];
  /** Call ids sent with references left unresolved (Parallel). */
  unresolved: Set<string>;
}

export interface DispatchOptions {
  agent: Protocol;
  k: number;
  maxCallsPerTurn: number;
}

interface Requested {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** Calls whose results this one needs: plan edges and referenced calls. */
  deps: string[];
  node?: PlanNode;
}

/**
 * The executor: turns a checked message into one episode step. A new execution plan becomes the run's plan; the
 * calls to send are the ones the message names, or the plan's first Kahn layer when it names none. A call whose
 * upstream failed is skipped, one whose upstream has no result yet waits, references are bound against earlier
 * results, and at most `maxCallsPerTurn` calls go out (the rest are deferred). The Parallel baseline is
 * dependency-blind: it sends every call at once with references it cannot resolve left as written.
 */
export function prepareDispatch(
  message: ParsedMessage,
  checked: Checked,
  state: RunState,
  options: DispatchOptions,
): Dispatch {
  const turn = state.turn;
  if (checked.plan) {
    // A call of the new plan that already succeeded under its id and tool is done: restating a plan, or refreshing
    // it around a failure, does not run its finished calls again (a POST would create twice). A new id runs anew.
    const status = (c: { id: string; tool: string }): PlanNode['status'] => {
      const result = state.results.get(c.id);
      return result?.ok && result.tool === c.tool ? 'done' : 'pending';
    };
    const nodes = new Map(
      checked.plan.plan.calls.map((c): [string, PlanNode] => [
        c.id,
        { ...c, deps: checked.plan!.deps.get(c.id) ?? [], status: status(c) },
      ]),
    );
    state.plan = { turn, plan: checked.plan.plan, layers: checked.plan.layers, nodes };
  }

  const actions: Action[] = [];
  const searches: SearchRequest[] =
    message.searches.length > 0
      ? message.searches
      : message.plan?.phase === 'exploration'
        ? message.plan.slots.map((s) => ({ query: s.query }))
        : [];
  searches.forEach((search, i) => {
    const action: SearchAction = {
      type: 'search_tool',
      id: `s${state.searches.length + i + 1}`,
      query: search.query,
      k: search.k ?? options.k,
    };
    actions.push(action);
  });

  const requested = requestedCalls(message, checked, state);
  const notRun: NotRun[] = [];
  const unresolved = new Set<string>();
  const sending = new Set(requested.map((r) => r.id));
  const lookup = (id: string): CallOutput | undefined => {
    const result = state.results.get(id);
    return result?.ok ? result : undefined;
  };
  let sent = 0;
  for (const call of requested) {
    const hold = (kind: NotRun['kind'], reason: string): void => {
      notRun.push({ id: call.id, tool: call.tool, turn, kind, reason });
    };
    if (options.agent !== 'parallel') {
      const blocked = blockedBy(call, state, sending);
      if (blocked) {
        if (blocked.kind === 'skipped' && call.node) call.node.status = 'skipped';
        hold(blocked.kind, blocked.reason);
        continue;
      }
    }
    if (sent >= options.maxCallsPerTurn) {
      hold('deferred', `at most ${options.maxCallsPerTurn} calls per turn; call it next turn`);
      continue;
    }
    let args = call.arguments;
    // A call that depends on nothing holds no reference (each names the call it reads): nothing to bind.
    if (call.deps.length > 0) {
      try {
        args = bindRefs(call.arguments, lookup, { leaveUnresolved: options.agent === 'parallel' }) as Record<
          string,
          unknown
        >;
      } catch (error) {
        if (!(error instanceof RefError)) throw error;
        if (call.node) call.node.status = 'failed';
        hold('unbound', `cannot bind ${error.message}`);
        continue;
      }
      if (findRefs(args).refs.length > 0) unresolved.add(call.id);
    }
    const action: ToolCallAction = { type: 'tool_call', id: call.id, tool: call.tool, arguments: args };
    actions.push(action);
    sent++;
  }
  return { actions, notRun, unresolved };
}

/** The calls a message asks for, made concrete: plan nodes filled in from the plan, ad hoc calls given ids. */
function requestedCalls(message: ParsedMessage, checked: Checked, state: RunState): Requested[] {
  const nodes = state.plan?.nodes;
  if (message.calls.length === 0) {
    if (!checked.plan || !nodes) return [];
    // The plan's first layer; for a plan some of whose calls are done already, its first layer with calls to run.
    const layer = state.plan!.layers.find((ids) => ids.some((id) => nodes.get(id)!.status === 'pending')) ?? [];
    return layer.filter((id) => nodes.get(id)!.status === 'pending').map((id) => fromNode(nodes.get(id)!));
  }
  const used = new Set([
    ...state.results.keys(),
    ...(nodes?.keys() ?? []),
    ...message.calls.map((c) => c.id).filter((id): id is string => id !== undefined),
  ]);
  let counter = 0;
  const freshId = (): string => {
    let id: string;
    do id = `c${++counter}`;
    while (used.has(id));
    used.add(id);
    return id;
  };
  return message.calls.map((call) => {
    const node = call.id !== undefined ? nodes?.get(call.id) : undefined;
    if (node) {
      const args = call.arguments ?? node.arguments;
      return { ...fromNode(node), arguments: args, deps: [...new Set([...node.deps, ...referencedCalls(args)])] };
    }
    const args = call.arguments ?? {};
    return { id: call.id ?? freshId(), tool: call.tool!, arguments: args, deps: referencedCalls(args) };
  });
}

function fromNode(node: PlanNode): Requested {
  return {
    id: node.id,
    tool: node.tool,
    arguments: node.arguments,
    deps: [...new Set([...node.deps, ...referencedCalls(node.arguments)])],
    node,
  };
}

/** Why a call cannot go out this turn, if it cannot: an upstream failed (skip) or has no result yet (wait). */
function blockedBy(
  call: Requested,
  state: RunState,
  sending: ReadonlySet<string>,
): { kind: 'skipped' | 'waiting'; reason: string } | undefined {
  for (const dep of call.deps) {
    const node = state.plan?.nodes.get(dep);
    const result = state.results.get(dep);
    // A node of the plan being followed speaks for itself; any other id is an earlier call, read from its result.
    const status = node ? node.status : result === undefined ? 'pending' : result.ok ? 'done' : 'failed';
    if (status === 'done') continue;
    if (status === 'pending') {
      return {
        kind: 'waiting',
        reason: sending.has(dep)
          ? `needs ${dep}'s result, and ${dep} is sent in this same turn; call it next turn`
          : `waits for ${dep}, which has not run yet`,
      };
    }
    const why =
      status === 'skipped' ? 'was skipped' : `failed${result && !result.ok ? ` (${describeFailure(result)})` : ''}`;
    return { kind: 'skipped', reason: `upstream ${dep} ${why}; retry ${dep} first` };
  }
  return undefined;
}

/** Folds one step's observations into the run state; returns the tool ids search surfaced for the first time. */
export function foldStep(state: RunState, dispatch: Dispatch, result: StepResult): string[] {
  const fresh: string[] = [];
  result.observations.forEach((observation: Observation, i) => {
    const action = dispatch.actions[i];
    if (observation.type === 'search_tool') {
      const search = action?.type === 'search_tool' ? action : undefined;
      const outcome: SearchOutcome = {
        id: observation.id ?? search?.id ?? `s${state.searches.length + 1}`,
        turn: state.turn,
        query: observation.query,
        k: search?.k ?? observation.results.length,
        results: observation.results,
      };
      state.searches.push(outcome);
      for (const hit of observation.results) {
        if (state.hits.has(hit.id)) continue;
        state.hits.set(hit.id, hit);
        state.surfaced.push(hit.id);
        fresh.push(hit.id);
      }
      return;
    }
    const call = action?.type === 'tool_call' ? action : undefined;
    const id = observation.id ?? call?.id ?? `c${state.calls.length + 1}`;
    const ok = observation.status >= 200 && observation.status < 300;
    // A cached body stays its stored text until something reads it (a reference, a failure's description); a fresh
    // one is kept as its JSON text too, a third of the heap its objects take (issue #31), parsed again if read.
    const text =
      untouchedBodyText(observation) ?? (observation.body === undefined ? undefined : JSON.stringify(observation.body));
    const head = {
      id,
      tool: observation.tool,
      turn: state.turn,
      arguments: call?.arguments ?? {},
      status: observation.status,
    };
    const outcome: CallOutcome = Object.assign(
      text === undefined ? { ...head, body: observation.body } : withStoredBody(head, text),
      { headers: observation.headers, ok },
    );
    if (observation.error) outcome.injected = observation.error;
    if (dispatch.unresolved.has(id)) outcome.unresolved = true;
    if (!ok) outcome.error = describeFailure(outcome);
    state.calls.push(outcome);
    state.results.set(id, outcome);
    const node = state.plan?.nodes.get(id);
    if (node && node.tool === outcome.tool) node.status = ok ? 'done' : 'failed';
  });
  state.notRun.push(...dispatch.notRun);
  return fresh;
}

/** One line on a failed call: the injected error, or the problem's detail, or the status. */
export function describeFailure(outcome: Pick<CallOutcome, 'status' | 'body' | 'injected'>): string {
  if (outcome.injected) return `${outcome.status} ${outcome.injected}, injected`;
  const body = outcome.body as {
    detail?: unknown;
    title?: unknown;
    errors?: { path?: unknown; message?: unknown }[];
  } | null;
  if (body && typeof body === 'object') {
    const errors = Array.isArray(body.errors)
      ? body.errors.slice(0, 3).map((e) => `${String(e.path ?? '')} ${String(e.message ?? '')}`.trim())
      : [];
    const detail =
      typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : undefined;
    if (detail || errors.length > 0)
      return `${outcome.status}: ${[...new Set([detail, ...errors])].filter(Boolean).join('; ')}`.slice(0, 300);
  }
  return `HTTP ${outcome.status}`;
}
