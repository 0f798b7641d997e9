import type { Protocol } from '../wire/episodes.js';
import { checkLayers, kahnLayers } from './dag.js';
import { MAX_SEARCHES_PER_TURN, type ExecutionPlan, type ParsedMessage } from './protocol.js';
import { findRefs } from './references.js';
import type { RunState } from './state.js';

/** A checked execution plan: its DAG edges (declared and implied by references, inside the plan) and its layers. */
export interface CheckedPlan {
  plan: ExecutionPlan;
  deps: Map<string, string[]>;
  layers: string[][];
}

export interface Checked {
  /** Every reason to reject the message; empty means it runs. */
  problems: string[];
  /**
   * Of those, the ones about the turn's shape (one phase per turn, an answer alone, an action at all): structure, not
   * state.
   */
  shape: string[];
  /**
   * The message carries a plan that parsed and, for an execution plan, passed the DAG checks, whatever else was wrong.
   */
  planValid: boolean;
  /** The message's execution plan, when it has a valid one and the message runs. */
  plan?: CheckedPlan;
}

/**
 * The protocol rules a parsed message must meet given what the run has seen: the agent's turn shape (ParaAct: one
 * phase per turn; ReAct: one action; Parallel: no plan), tools drawn from what search returned, a valid DAG, and
 * references that point at a planned call or an earlier result.
 */
export function checkMessage(message: ParsedMessage, agent: Protocol, state: RunState): Checked {
  const shape: string[] = [];
  const { searches, calls, plan } = message;
  const actions = searches.length + calls.length;

  if (message.answer !== undefined && (actions > 0 || plan)) {
    shape.push('an <answer> ends the run: send it alone, once the observations it needs are in');
  }
  if (
    message.answer === undefined &&
    actions === 0 &&
    !(agent === 'paraact' && plan) &&
    message.problems.length === 0
  ) {
    shape.push('no action: write <search_tool> to find tools, <tool_call> to call one, or <answer> to finish');
  }
  if (searches.length > MAX_SEARCHES_PER_TURN)
    shape.push(`${searches.length} searches in one turn; at most ${MAX_SEARCHES_PER_TURN}`);

  if (agent === 'paraact') {
    if (searches.length > 0 && calls.length > 0)
      shape.push('a turn explores (<search_tool>) or executes (<tool_call>), not both');
    if (plan?.phase === 'exploration' && calls.length > 0)
      shape.push('an exploration plan is followed by <search_tool> actions, not <tool_call>');
    if (plan?.phase === 'execution' && searches.length > 0)
      shape.push('an execution plan is followed by <tool_call> actions, not <search_tool>');
  } else {
    if (plan)
      shape.push(
        `<plan> is not part of the ${agent === 'react' ? 'ReAct' : 'Parallel'} protocol: ` +
          `${agent === 'react' ? 'think, then take one action' : 'write the calls directly'}`,
      );
    if (agent === 'react' && actions > 1) shape.push(`ReAct takes one action per turn; this message has ${actions}`);
  }

  const problems = [...message.problems, ...shape];
  const known = new Set(state.surfaced);
  const checked = plan?.phase === 'execution' ? checkPlan(plan, state, known, problems) : undefined;

  // The calls this turn may name by id: the new plan's, else the one being followed.
  const planned = checked
    ? new Map(checked.plan.calls.map((c) => [c.id, c]))
    : new Map(state.plan ? [...state.plan.nodes].map(([id, n]) => [id, n]) : []);
  const turnIds = calls.map((c) => c.id).filter((id): id is string => id !== undefined);
  // What the turn's references may name: built once, for the first call that has any.
  let scope: Set<string> | undefined;
  const inScope = () =>
    (scope ??= new Set([...planned.keys(), ...state.results.keys(), ...(agent === 'parallel' ? turnIds : [])]));
  const seen = new Set<string>();
  for (const call of calls) {
    const name = call.id ?? call.tool ?? 'a call';
    if (call.id !== undefined) {
      if (seen.has(call.id)) problems.push(`<tool_call> ${call.id} appears twice in this turn`);
      seen.add(call.id);
    }
    const node = call.id !== undefined ? planned.get(call.id) : undefined;
    if (node) {
      if (call.tool !== undefined && call.tool !== node.tool)
        problems.push(
          `<tool_call> ${call.id} is planned as ${node.tool}, not ${call.tool}; a different call needs a new id`,
        );
    } else if (call.tool === undefined) {
      problems.push(`<tool_call> ${call.id} is not a call of the current plan; give its "tool" and "arguments"`);
      continue;
    }
    const tool = call.tool ?? node!.tool;
    const unknown = unknownTool(tool, known);
    if (unknown) problems.push(`<tool_call> ${name}: ${unknown}`);
    if (call.arguments !== undefined) problems.push(...refProblems(call.arguments, inScope, `<tool_call> ${name}`));
  }
  const planValid = plan !== undefined && (plan.phase === 'exploration' || checked !== undefined);
  return checked && problems.length === 0
    ? { problems, shape, planValid, plan: checked }
    : { problems, shape, planValid };
}

function checkPlan(
  plan: ExecutionPlan,
  state: RunState,
  known: Set<string>,
  problems: string[],
): CheckedPlan | undefined {
  const before = problems.length;
  const ids = new Set<string>();
  for (const call of plan.calls) {
    if (ids.has(call.id)) problems.push(`<plan>: call id ${call.id} is used twice`);
    ids.add(call.id);
  }
  for (const tool of plan.tools) {
    const unknown = unknownTool(tool, known);
    if (unknown) problems.push(`<plan>: tools: ${unknown}`);
  }
  const declared = new Set(plan.tools);
  const deps = new Map<string, string[]>();
  for (const call of plan.calls) {
    if (!declared.has(call.tool)) problems.push(`<plan>: ${call.id} calls ${call.tool}, which is not in "tools"`);
    const inside = new Set<string>();
    for (const dep of call.depends_on) {
      if (ids.has(dep)) inside.add(dep);
      else if (!state.results.has(dep))
        problems.push(
          `<plan>: ${call.id} depends on ${dep}, which is neither a ` +
            'call of this plan nor an earlier call (dangling dependency)',
        );
    }
    problems.push(
      ...refProblems(call.arguments, () => new Set([...ids, ...state.results.keys()]), `<plan>: ${call.id}`),
    );
    for (const ref of findRefs(call.arguments).refs) if (ids.has(ref.call)) inside.add(ref.call);
    deps.set(call.id, [...inside]);
  }
  if (problems.length > before) return undefined;

  const nodes = plan.calls.map((c) => ({ id: c.id, deps: deps.get(c.id)! }));
  const layering = kahnLayers(nodes);
  if (!layering.ok) {
    problems.push(`<plan>: the dependencies form a cycle: ${layering.cycle.join(' → ')}`);
    return undefined;
  }
  if (plan.layers) {
    const layerProblems = checkLayers(nodes, plan.layers);
    if (layerProblems.length > 0) {
      problems.push(...layerProblems.map((p) => `<plan>: ${p}`));
      return undefined;
    }
  }
  return { plan, deps, layers: plan.layers ?? layering.layers };
}

/**
 * The reference problems of one call's arguments; `scope` (the call ids they may name) is asked for only when there are
 * references.
 */
function refProblems(args: Record<string, unknown>, scope: () => ReadonlySet<string>, label: string): string[] {
  const { refs, problems } = findRefs(args);
  const out = problems.map((p) => `${label}: ${p}`);
  for (const ref of refs) {
    if (!scope().has(ref.call))
      out.push(`${label}: dangling reference ${ref.text}: no call ${ref.call} in the plan or in earlier turns`);
  }
  return out;
}

function unknownTool(tool: string, known: ReadonlySet<string>): string | undefined {
  if (known.has(tool)) return undefined;
  if (known.size === 0) return `unknown tool ${JSON.stringify(tool)}: no search has returned tools yet; search first`;
  const list = [...known].slice(-8).join(', ');
  return (
    `unknown tool ${JSON.stringify(tool)}: not among the tools search returned ` +
    `(${list}${known.size > 8 ? ', …' : ''}); search for it first`
  );
}
