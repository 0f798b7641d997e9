import type { Tool } from '../../library/tool.js';
import type { CallOutcome, RunState } from '../../protocol/state.js';
import { rankCandidates } from './choose.js';
import { linkPath } from './links.js';
import { withoutAsked } from './report.js';
import { querySlots, type Slot } from './slots.js';
import { fillFromText, schemaDefault } from './values.js';

/**
 * The heuristic's view of a task, recomputed from the run state every turn (the policy keeps no memory of its own, so
 * one policy object serves any number of concurrent runs): each capability slot, the tool it is trying, the call
 * that tool gets (arguments from the task text, references to the slots whose output it needs, schema defaults),
 * and where that call stands.
 *
 * A slot's candidates are tried in order. Attempt `a` of slot `i` is call `c{i+1}` (first) or `c{i+1}_{a+1}`; an
 * attempt is given up after one failure of its own (a 4xx such as a validation or auth error, a binding that did not
 * resolve) or two failures of any kind (an injected rate limit is retried once). When every candidate is given up
 * the slot is searched again, wider, once; after that it is abandoned.
 */

export type SlotStatus = 'search' | 'research' | 'call' | 'done' | 'abandoned';

export interface SlotCall {
  id: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  /** Call ids of other slots this call reads from (its DAG in-edges). */
  producers: string[];
}

export interface SlotPlan {
  slot: Slot;
  status: SlotStatus;
  call?: SlotCall;
  /** The successful result, for a done slot. */
  result?: CallOutcome;
  /** Why a slot was abandoned. */
  reason?: string;
}

/** Failures a call may have before its tool is given up: an injected transient error is worth one retry. */
const MAX_FAILURES = 2;
const TRANSIENT = new Set(['rate_limit', 'network', 'timeout']);
/** A wider search's k, as a multiple of the run's. */
const RESEARCH_FACTOR = 3;
export const MAX_RESEARCH_K = 10;

export function attemptId(slot: number, attempt: number): string {
  return attempt === 0 ? `c${slot + 1}` : `c${slot + 1}_${attempt + 1}`;
}

export function planSlots(query: string, state: RunState): SlotPlan[] {
  const plans = querySlots(query).map((slot) => planSlot(slot, state));
  fillArguments(plans, query);
  return plans;
}

/** The k of a wider search: a multiple of the k the run's first searches used. */
export function researchK(state: RunState): number {
  return Math.min(MAX_RESEARCH_K, (state.searches[0]?.k ?? 3) * RESEARCH_FACTOR);
}

function planSlot(slot: Slot, state: RunState): SlotPlan {
  const searches = state.searches.filter((s) => s.query === slot.query);
  if (searches.length === 0) return { slot, status: 'search' };
  const ranked = rankCandidates(slot, searches, state);
  let last: SlotCall | undefined;
  for (let attempt = 0; attempt < ranked.length; attempt++) {
    const id = attemptId(slot.index, attempt);
    const tool = state.tools.get(ranked[attempt]!);
    if (!tool) continue;
    const call: SlotCall = { id, tool, arguments: {}, producers: [] };
    if (givenUp(id, state)) {
      last = call;
      continue;
    }
    const result = state.results.get(id);
    return result?.ok ? { slot, status: 'done', call, result } : { slot, status: 'call', call };
  }
  // The last tool tried stays on the slot so that consumers still see what they wait for (or what failed them).
  const tried = last ? { call: last } : {};
  if (searches.every((s) => s.k < researchK(state))) return { slot, status: 'research', ...tried };
  return {
    slot,
    status: 'abandoned',
    ...tried,
    reason: ranked.length === 0 ? 'no tool found for it' : `every tool found for it failed (${ranked.join(', ')})`,
  };
}

function givenUp(id: string, state: RunState): boolean {
  const failures = state.calls.filter((c) => c.id === id && !c.ok);
  if (failures.some((c) => !c.unresolved && !(c.injected && TRANSIENT.has(c.injected)))) return true;
  if (failures.length >= MAX_FAILURES) return true;
  return state.notRun.some((n) => n.id === id && n.kind === 'unbound');
}

/**
 * Arguments for every slot's call: values from the slot's own text, then values the whole task ties to a parameter,
 * then, for required parameters still empty, a reference to another slot's output (nearest earlier slot first, a
 * later one only when no cycle results), then schema defaults. A call that needs the output of an abandoned slot
 * is abandoned too.
 */
function fillArguments(plans: SlotPlan[], query: string): void {
  for (const plan of plans) {
    if (plan.status !== 'call') continue;
    const call = plan.call!;
    const filled = fillFromText(call.tool, withoutAsked(plan.slot.text), withoutAsked(query));
    call.arguments = filled.arguments;
    const unfilled: string[] = [];
    for (const param of filled.missing) {
      const others = plans.filter((p) => p !== plan && p.call !== undefined);
      const ordered = [
        ...others.filter((p) => p.slot.index < plan.slot.index).reverse(),
        ...others.filter((p) => p.slot.index > plan.slot.index),
      ];
      const link = ordered
        .map((p) => ({ producer: p.call!, path: linkPath(call.tool, param, p.call!.tool) }))
        .find((l) => l.path !== undefined && !reaches(plans, l.producer.id, call.id));
      if (link) {
        call.arguments[param] = { $ref: `${link.producer.id}.${link.path}` };
        if (!call.producers.includes(link.producer.id)) call.producers.push(link.producer.id);
        continue;
      }
      const fallback = schemaDefault(call.tool, param);
      if (fallback) call.arguments[param] = fallback.value;
      else unfilled.push(param);
    }
    // Sent without a required value (an identifier is never made up), the call could only fail validation or act on
    // a resource that does not exist.
    if (unfilled.length > 0) {
      plan.status = 'abandoned';
      plan.reason = `nothing in the task or in other results gives ${unfilled.join(', ')}`;
    }
  }
  // Consumers of abandoned slots cannot be fed (a slot being searched again keeps its consumers waiting).
  let changed = true;
  while (changed) {
    changed = false;
    for (const plan of plans) {
      if (plan.status !== 'call') continue;
      const starved = plan.call!.producers.find((id) => plans.find((p) => p.call?.id === id)?.status === 'abandoned');
      if (starved) {
        plan.status = 'abandoned';
        plan.reason = `it needs the output of ${starved}, which could not be obtained`;
        changed = true;
      }
    }
  }
}

/** Whether `from` already (transitively) reads from `to`: an edge to → from would then close a cycle. */
function reaches(plans: readonly SlotPlan[], from: string, to: string): boolean {
  const byId = new Map(plans.filter((p) => p.call).map((p) => [p.call!.id, p.call!]));
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.producers ?? []));
  }
  return false;
}
