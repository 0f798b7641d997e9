import type { ExecutionPlan } from '../protocol/protocol.js';
import type { DagCall, SlotSpec } from './types.js';

/**
 * The single-agent tag format each round is written in as it is sent (B.2): a <think> then the action; the Critic's
 * last verdict opens the Planner's <think>; an execution DAG flattened to its levels, only the first carrying the
 * full <plan>; a plan equal to the one in force is not repeated.
 */

const tag = (name: string, content: string): string => `<${name}>${content}</${name}>`;
const think = (feedback: string | undefined, reasoning: string) =>
  tag('think', [feedback, reasoning.trim()].filter((s) => s && s.trim() !== '').join(' '));

export function explorationTurn(feedback: string | undefined, reasoning: string, slots: readonly SlotSpec[]): string {
  const plan = { phase: 'exploration', slots: slots.map((s) => ({ capability: s.capability, query: s.query })) };
  const search = (s: SlotSpec) =>
    tag('search_tool', s.k === undefined ? s.query : JSON.stringify({ query: s.query, k: s.k }));
  return [think(feedback, reasoning), tag('plan', JSON.stringify(plan)), ...slots.map(search)].join('\n');
}

export interface ExecutionTurn {
  feedback: string | undefined;
  reasoning: string;
  dag: readonly DagCall[];
  layers: readonly string[][];
  /** The calls this turn sends (one level, or its part under the per-turn cap). */
  level: readonly DagCall[];
  /** The Executor's arguments for them. */
  args: Record<string, Record<string, unknown>>;
  /** The DAG's first turn: it carries the plan, unless the plan in force is the same. */
  first: boolean;
  inForce?: ExecutionPlan;
}

export function executionTurn(turn: ExecutionTurn): string {
  const { dag, level, args } = turn;
  const planned = (call: DagCall) => (turn.first ? (args[call.id] ?? call.arguments) : call.arguments);
  const plan: ExecutionPlan = {
    phase: 'execution',
    tools: [...new Set(dag.map((c) => c.tool))],
    calls: dag.map((c) => ({ id: c.id, tool: c.tool, arguments: planned(c), depends_on: c.depends_on ?? [] })),
    layers: turn.layers.map((l) => [...l]),
  };
  const repeated = turn.inForce !== undefined && canonical(turn.inForce.calls) === canonical(plan.calls);
  const withPlan = turn.first && !repeated;
  const reasoning = turn.first
    ? turn.reasoning
    : `Next level: ${level.map((c) => c.id).join(', ')}, their inputs bound from the results before.`;
  const calls = level.map((call) => {
    const given = args[call.id];
    // A level after the plan's first sends its inferred arguments only where they differ from the plan's.
    const differs = given !== undefined && canonical(given) !== canonical(planned(call));
    return tag('tool_call', JSON.stringify(differs ? { id: call.id, arguments: given } : { id: call.id }));
  });
  return [
    think(turn.first ? turn.feedback : undefined, reasoning),
    ...(withPlan ? [tag('plan', JSON.stringify(plan))] : []),
    ...calls,
  ].join('\n');
}

export function answerTurn(feedback: string | undefined, reasoning: string, answer: string): string {
  return [think(feedback, reasoning), tag('answer', answer.trim())].join('\n');
}

/** JSON with object keys sorted, so that equal plans compare equal however their keys were ordered. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
