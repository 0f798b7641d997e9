import { DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../../protocol/protocol.js';
import { newRunState } from '../../protocol/state.js';
import { approximateUsage } from '../tokens.js';
import type { ChatMessage, Policy, PolicyContext } from '../types.js';
import { planSlots, researchK, type SlotPlan } from './plan.js';
import {
  answerText,
  chatCalls,
  chatSearches,
  writeAnswer,
  writeParaActCalls,
  writeParallelCalls,
  writeReActCall,
  writeSearches,
} from './write.js';
import type { AssistantMessage } from '../../wire/episodes.js';

/**
 * `heuristic`: a deterministic, non-LLM policy that speaks the agent protocol, a real baseline for each agent.
 *
 * - Exploration: capability slots from the query (slots.ts), searched together (ParaAct, Parallel) or one per turn
 *   (ReAct).
 * - Tool choice: the slot's search results ranked by lexical overlap with the slot (choose.ts).
 * - Arguments: from the task text (values.ts) and, for required parameters, from upstream outputs by reference
 *   (links.ts): each reference is a DAG edge.
 * - Execution: ParaAct writes the calls as a DAG with Kahn layers and sends each layer together; ReAct sends one
 *   call per turn with the upstream values copied in; Parallel sends every call at once, dependency-blind.
 * - Recovery: an injected transient failure is retried once; a tool that fails otherwise is replaced by the slot's
 *   next candidate, and when none is left the slot is searched again with a wider k.
 * - Answer: when every slot is done or abandoned (or on the last turn), a summary of what each tool returned.
 *
 * It reads the run state the client passes (PolicyContext.state) and keeps nothing between calls, so one instance
 * serves concurrent runs. Token usage is the chars/4 approximation (tokens.ts).
 */
export function heuristicPolicy(): Policy {
  return {
    name: 'heuristic',
    nativeTools: true,
    async next(messages: readonly ChatMessage[], context: PolicyContext) {
      if (context.agent === 'chat') {
        const message = nextChatMessage(context);
        const text = message.content ?? '';
        return { text, message, usage: approximateUsage(messages, text || JSON.stringify(message.tool_calls)) };
      }
      const text = nextMessage(context);
      return { text, usage: approximateUsage(messages, text) };
    },
  };
}

/**
 * The same decisions as nextMessage, as native tool calls: the searches of every open slot, then the ready calls
 * together, then the answer.
 */
function nextChatMessage(context: PolicyContext): AssistantMessage {
  const state = context.state ?? newRunState();
  const plans = planSlots(context.task.query, state);
  const lastTurn = context.turn >= (context.maxTurns ?? DEFAULT_MAX_TURNS);
  const answer = (capped: boolean): AssistantMessage => ({
    role: 'assistant',
    content: answerText(plans, capped, context.task.query),
  });
  if (lastTurn || state.rejected) return answer(lastTurn);
  const toSearch = plans.filter((p) => p.status === 'search');
  if (toSearch.length > 0) return chatSearches(toSearch, undefined, context.turn);
  const toWiden = plans.filter((p) => p.status === 'research');
  if (toWiden.length > 0) return chatSearches(toWiden, researchK(state), context.turn);
  const ready = plans
    .filter((p) => p.status === 'call')
    .map((p) => p.call!)
    .filter((c) => c.producers.every((id) => state.results.get(id)?.ok === true));
  if (ready.length > 0) return chatCalls(ready.slice(0, context.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN), state);
  return answer(false);
}

function nextMessage(context: PolicyContext): string {
  const state = context.state ?? newRunState();
  const plans = planSlots(context.task.query, state);
  const lastTurn = context.turn >= (context.maxTurns ?? DEFAULT_MAX_TURNS);
  // A rejected message would be written again the same way: answer with what there is instead of looping.
  if (lastTurn || state.rejected) return writeAnswer(plans, lastTurn, context.task.query);

  // The chat agent is nextChatMessage's.
  const agent = context.agent as Exclude<PolicyContext['agent'], 'chat'>;
  const one = <T>(items: T[]): T[] => (agent === 'react' ? items.slice(0, 1) : items);
  const toSearch = plans.filter((p) => p.status === 'search');
  if (toSearch.length > 0) return writeSearches(agent, one(toSearch), undefined, false);

  // A slot searched again first: its consumers should read from the tool that replaces the failed one.
  const toWiden = plans.filter((p): p is SlotPlan => p.status === 'research');
  if (toWiden.length > 0) return writeSearches(agent, one(toWiden), researchK(state), true);

  const cap = context.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
  const remaining = plans.filter((p) => p.status === 'call').map((p) => p.call!);
  const ready = remaining.filter(
    (c) => agent === 'parallel' || c.producers.every((id) => state.results.get(id)?.ok === true),
  );
  if (ready.length > 0) {
    if (agent === 'react') return writeReActCall(ready[0]!, state);
    if (agent === 'parallel') return writeParallelCalls(ready.slice(0, cap));
    return writeParaActCalls(remaining, ready.slice(0, cap), state);
  }
  return writeAnswer(plans, false, context.task.query);
}
