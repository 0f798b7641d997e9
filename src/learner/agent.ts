import { DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
import { compactJson } from '../protocol/compact.js';
import { newRunState, type RunState } from '../protocol/state.js';
import type { Rng } from '../simulator/synth/random.js';
import type { SearchHit } from '../wire/episodes.js';
import type { SlotCall } from '../agent/heuristic/plan.js';
import { askedFields, withoutAsked } from '../agent/heuristic/report.js';
import { querySlots, type Slot } from '../agent/heuristic/slots.js';
import { paramsOf } from '../agent/heuristic/values.js';
import { writeParaActCalls, writeSearches } from '../agent/heuristic/write.js';
import { approximateUsage } from '../agent/tokens.js';
import type { ChatMessage, Policy, PolicyContext, TokenUsage } from '../agent/types.js';
import { answerCandidates } from './answer-features.js';
import { argumentCandidates } from './argument-features.js';
import { choose, type ChoiceMode, type Decision, type DecisionKind, type Weights } from './linear.js';
import { toolCandidates } from './tool-features.js';

/**
 * The learned policy acting in one ParaAct episode through text turns, as any model would. The heuristic's slots
 * (one per clause of the task) are searched together; then, once, the decisions: a tool per slot among its search
 * results, a value per required parameter (a literal of the task, an earlier slot's result field by reference, a
 * default, or none); the calls go out as a DAG, layer by layer; last, a result field per field the task asks for,
 * stated in the answer. Every choice among two or more candidates is kept (`decisions`) for the policy gradient.
 * A class because it holds one episode's decisions between its turns.
 */
export class LinearAgent implements Policy {
  readonly name: string;
  readonly decisions: Decision[] = [];
  private calls: SlotCall[] | undefined;

  constructor(
    private readonly weights: Weights,
    private readonly mode: ChoiceMode,
    private readonly rng: Rng,
    private readonly k: number,
  ) {
    this.name = mode === 'uniform' ? 'random' : 'linear';
  }

  async next(messages: readonly ChatMessage[], context: PolicyContext): Promise<{ text: string; usage: TokenUsage }> {
    const text = this.turn(context);
    return { text, usage: approximateUsage(messages, text) };
  }

  private turn(context: PolicyContext): string {
    const state = context.state ?? newRunState();
    const slots = querySlots(context.task.query);
    const last = context.turn >= (context.maxTurns ?? DEFAULT_MAX_TURNS);
    if (state.searches.length === 0 && !last) {
      return writeSearches(
        'paraact',
        slots.map((slot) => ({ slot, status: 'search' as const })),
        this.k,
        false,
      );
    }
    this.calls ??= this.plan(slots, context.task.query, state);
    if (!last && !state.rejected) {
      const open = this.calls.filter((c) => !attempted(c.id, state));
      const ready = open.filter((c) => c.producers.every((id) => state.results.get(id)?.ok === true));
      const cap = context.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
      if (ready.length > 0) return writeParaActCalls(open, ready.slice(0, cap), state);
    }
    return this.answer(context.task.query, state);
  }

  /** Each slot's tool and arguments, decided once the searches are back. */
  private plan(slots: readonly Slot[], query: string, state: RunState): SlotCall[] {
    const text = withoutAsked(query);
    const calls: SlotCall[] = [];
    for (const slot of slots) {
      const tools = toolCandidates(
        slot,
        query,
        slotHits(slot, state),
        state.tools,
        calls.map((c) => c.tool),
      );
      if (tools.tools.length === 0) continue;
      const tool = tools.tools[this.decide('tool', tools.features)]!;
      const call: SlotCall = { id: `c${slot.index + 1}`, tool, arguments: {}, producers: [] };
      const at = text.indexOf(slot.text);
      const clause = at < 0 ? { start: 0, end: 0 } : { start: at, end: at + slot.text.length };
      const used = new Set<string>();
      for (const param of paramsOf(tool).filter((p) => p.required)) {
        const candidates = argumentCandidates(param, tool, { text, clause }, used, calls);
        const choice = candidates.choices[this.decide('argument', candidates.features)]!;
        if (choice.value === undefined) continue;
        call.arguments[param.name] = choice.value;
        if (choice.literal !== undefined) used.add(choice.literal);
        const producer = choice.producer;
        if (producer !== undefined && !call.producers.includes(producer)) call.producers.push(producer);
      }
      calls.push(call);
    }
    return calls;
  }

  /** The answer: for each field the task asks for, the value of the result field chosen for it. */
  private answer(query: string, state: RunState): string {
    const results = (this.calls ?? []).flatMap((call) => {
      const result = state.results.get(call.id);
      return result?.ok ? [{ slot: Number(call.id.slice(1)) - 1, body: result.body }] : [];
    });
    const stated = askedFields(query).flatMap((field) => {
      const candidates = answerCandidates(field, results);
      if (candidates.values.length === 0) return [];
      return [`the "${field.key}" is ${candidates.values[this.decide('answer', candidates.features)]}`];
    });
    const text =
      stated.length > 0
        ? `${stated.join(', ')}.`
        : results.length > 0
          ? `The results: ${compactJson(
              results.map((r) => r.body),
              300,
            )}`
          : 'No call succeeded: I cannot answer.';
    const think = `${results.length} of ${this.calls?.length ?? 0} calls succeeded; I answer from their results.`;
    return `<think>${think}</think>\n<answer>${text}</answer>`;
  }

  /** One choice among the candidates; a choice of one is no decision and is not kept. */
  private decide(kind: DecisionKind, features: number[][]): number {
    if (features.length === 1) return 0;
    const chosen = choose(this.weights[kind], features, this.mode, this.rng);
    this.decisions.push({ kind, features, chosen });
    return chosen;
  }
}

/** Sent (whatever came back), or held back for good: skipped after a failed upstream, or its reference did not bind. */
function attempted(id: string, state: RunState): boolean {
  if (state.calls.some((c) => c.id === id)) return true;
  return state.notRun.some((n) => n.id === id && (n.kind === 'skipped' || n.kind === 'unbound'));
}

/** The hits of the slot's searches, in rank order, each tool once. */
function slotHits(slot: Slot, state: RunState): SearchHit[] {
  const hits = new Map<string, SearchHit>();
  for (const search of state.searches) {
    if (search.query !== slot.query) continue;
    for (const hit of search.results) if (!hits.has(hit.id)) hits.set(hit.id, hit);
  }
  return [...hits.values()];
}
