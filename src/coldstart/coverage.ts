import type { Coverage, CriticLabels, SharedState } from './types.js';

/**
 * The Critic's coverage analysis, derived from its labels by code (B.1), never by the model:
 * - a capability is missing while none of the tools retrieved for it is relevant;
 * - `can_answer`: every capability has a relevant, successful observation of one of its tools;
 * - `done`: the round's work is complete (every slot got results, or every DAG call ran).
 */
export function coverageOf(state: SharedState, phase: 'retrieval' | 'execution'): Coverage {
  const slotOf = (tool: string) => state.tools.get(tool)?.slot;
  const toolFor = (slot: number) => [...state.tools.values()].some((t) => t.slot === slot && t.label === 'relevant');
  const answered = (slot: number) =>
    state.observations.some((o) => o.ok && o.label === 'relevant' && slotOf(o.tool) === slot);
  // After execution, a capability none of whose calls answered relevantly (and none is still pending) is missing too.
  const missing = state.slots.filter(
    (_, i) => !toolFor(i) || (phase === 'execution' && !answered(i) && !pendingFor(state, i)),
  );
  const done =
    phase === 'retrieval'
      ? state.slots.every((s) => s.retrieved.length > 0)
      : (state.dag ?? []).every((call) => state.observations.some((o) => o.id === call.id));
  return {
    done,
    can_answer: state.slots.length > 0 && state.slots.every((_, i) => answered(i)),
    missing_capabilities: missing.map((s) => s.capability),
  };
}

/** A slot whose tools still have a DAG call not yet run: not missing yet. */
function pendingFor(state: SharedState, slot: number): boolean {
  return (state.dag ?? []).some(
    (call) => state.tools.get(call.tool)?.slot === slot && !state.observations.some((o) => o.id === call.id),
  );
}

/** The Critic's verdict as the next Planner turn's <think> opens with it (B.2: the Critic is no model turn). */
export function feedbackOf(labels: CriticLabels, coverage: Coverage): string {
  const gaps =
    coverage.missing_capabilities.length > 0
      ? ` Still missing: ${coverage.missing_capabilities.map((c) => `"${c}"`).join(', ')}.`
      : '';
  const ready = coverage.can_answer ? ' The results suffice to answer.' : '';
  return `${labels.reasoning.trim()}${gaps}${ready}`;
}
