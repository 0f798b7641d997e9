import { kahnLayers } from '../../protocol/dag.js';
import type { ExecutionPlan, ExplorationPlan } from '../../protocol/protocol.js';
import { bindRefs } from '../../protocol/references.js';
import type { PlanState, RunState } from '../../protocol/state.js';
import type { AssistantMessage, ChatToolCall } from '../../wire/episodes.js';
import type { SlotCall, SlotPlan } from './plan.js';
import { askedFields, reportSlot } from './report.js';

/** The heuristic's messages, written in the same tagged protocol a model writes. */

const tag = (name: string, content: string): string => `<${name}>${content}</${name}>`;

export function writeSearches(
  agent: 'paraact' | 'react' | 'parallel',
  slots: readonly SlotPlan[],
  k: number | undefined,
  wider: boolean,
): string {
  const names = slots.map((s) => `"${s.slot.query}"`).join(', ');
  const think = wider
    ? `The tools found for ${names} failed or do not fit; I search again with more results (k=${k}).`
    : agent === 'react'
      ? `I need a tool for ${names}; I search for it first.`
      : `The task needs ${slots.length} capabilit${slots.length === 1 ? 'y' : 'ies'} with no tool yet: ${names}. I ` +
        `search for ${slots.length === 1 ? 'it' : 'all of them at once'}.`;
  const parts = [tag('think', think)];
  if (agent === 'paraact') {
    const plan: ExplorationPlan = {
      phase: 'exploration',
      slots: slots.map((s) => ({ capability: s.slot.text, query: s.slot.query })),
    };
    parts.push(tag('plan', JSON.stringify(plan)));
  }
  for (const s of slots)
    parts.push(
      tag('search_tool', JSON.stringify(k === undefined ? { query: s.slot.query } : { query: s.slot.query, k })),
    );
  return parts.join('\n');
}

/**
 * ParaAct's execution turn: a new plan (the remaining calls as a DAG with Kahn layers) when the one the client follows
 * no longer matches, then the ready calls by id.
 */
export function writeParaActCalls(remaining: readonly SlotCall[], ready: readonly SlotCall[], state: RunState): string {
  const parts: string[] = [];
  const fresh = !samePlan(remaining, state.plan);
  const ids = new Set(remaining.map((c) => c.id));
  const edges = remaining.flatMap((c) => c.producers.filter((p) => ids.has(p)).map((p) => `${c.id} needs ${p}`));
  const think = fresh
    ? `Tools: ${remaining.map((c) => `${c.id} = ${c.tool.id}`).join(', ')}. ` +
      `${edges.length > 0 ? `Dependencies: ${edges.join('; ')}.` : 'The calls are independent.'} I run ` +
      `${ready.map((c) => c.id).join(', ')} now.`
    : `Next in the plan: ${ready.map((c) => c.id).join(', ')}.`;
  parts.push(tag('think', think));
  if (fresh) {
    const calls = remaining.map((c) => ({
      id: c.id,
      tool: c.tool.id,
      arguments: c.arguments,
      depends_on: c.producers.filter((p) => ids.has(p)),
    }));
    const layering = kahnLayers(calls.map((c) => ({ id: c.id, deps: c.depends_on })));
    const plan: ExecutionPlan = { phase: 'execution', tools: [...new Set(remaining.map((c) => c.tool.id))], calls };
    if (layering.ok) plan.layers = layering.layers;
    parts.push(tag('plan', JSON.stringify(plan)));
  }
  for (const call of ready) parts.push(tag('tool_call', JSON.stringify({ id: call.id })));
  return parts.join('\n');
}

/** ReAct's one call, its references replaced by the values it has read from earlier results. */
export function writeReActCall(call: SlotCall, state: RunState): string {
  const args = bindRefs(call.arguments, (id) => {
    const result = state.results.get(id);
    return result?.ok ? result : undefined;
  });
  return [
    tag('think', `I call ${call.tool.id} for this step.`),
    tag('tool_call', JSON.stringify({ id: call.id, tool: call.tool.id, arguments: args })),
  ].join('\n');
}

/** Parallel's calls, all at once, references as written: it does not order calls by their dependencies. */
export function writeParallelCalls(calls: readonly SlotCall[]): string {
  const think =
    calls.length === 1 ? `I call ${calls[0]!.tool.id}.` : `I call ${calls.map((c) => c.tool.id).join(', ')} at once.`;
  return [
    tag('think', think),
    ...calls.map((c) => tag('tool_call', JSON.stringify({ id: c.id, tool: c.tool.id, arguments: c.arguments }))),
  ].join('\n');
}

/** The final answer: each capability with the tool that served it and what it returned, or why it could not be done. */
export function writeAnswer(plans: readonly SlotPlan[], capped: boolean, query: string): string {
  const done = plans.filter((p) => p.status === 'done').length;
  const think =
    `${done} of ${plans.length} parts of the task are ` +
    `done${capped ? ' and no turns are left' : ''}; I answer from the results.`;
  return [tag('think', think), tag('answer', answerText(plans, capped, query))].join('\n');
}

/** The answer itself. */
export function answerText(plans: readonly SlotPlan[], capped: boolean, query: string): string {
  const asked = askedFields(query);
  const lines = plans.map((p, i) => {
    if (p.status === 'done' && p.result)
      return `- ${p.slot.text}: ${p.call!.tool.name} (${p.call!.tool.id}) ${reportSlot(p.result.body, asked, i)}`;
    if (p.status === 'abandoned') return `- ${p.slot.text}: not done, ${p.reason}.`;
    return `- ${p.slot.text}: not done${capped ? ' within the turn limit' : ''}.`;
  });
  return `Results:\n${lines.join('\n')}`;
}

/** The chat agent's searches: one search_tool call per slot, sent together. */
export function chatSearches(slots: readonly SlotPlan[], k: number | undefined, turn: number): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: slots.map((s, i) =>
      toolCall(
        `search_${turn}_${i + 1}`,
        'search_tool',
        k === undefined ? { query: s.slot.query } : { query: s.slot.query, k },
      ),
    ),
  };
}

/**
 * The chat agent's ready calls, sent together as native calls named by tool id, each with the values it reads from
 * earlier results copied in (a chat model has no references) and the slot's call id, so later turns find its result.
 */
export function chatCalls(calls: readonly SlotCall[], state: RunState): AssistantMessage {
  const lookup = (id: string) => {
    const result = state.results.get(id);
    return result?.ok ? result : undefined;
  };
  return {
    role: 'assistant',
    content: null,
    tool_calls: calls.map((call) =>
      toolCall(call.id, call.tool.id, bindRefs(call.arguments, lookup) as Record<string, unknown>),
    ),
  };
}

const toolCall = (id: string, name: string, args: Record<string, unknown>): ChatToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

function samePlan(remaining: readonly SlotCall[], plan: PlanState | undefined): boolean {
  if (!plan) return false;
  return remaining.every((c) => {
    const node = plan.nodes.get(c.id);
    return (
      node !== undefined && node.tool === c.tool.id && JSON.stringify(node.arguments) === JSON.stringify(c.arguments)
    );
  });
}
