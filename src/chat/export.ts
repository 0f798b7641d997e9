import type { Tool } from '../library/tool.js';
import { parseMessage } from '../protocol/parse.js';
import { fitSearch, renderCallWithin, searchResults } from '../protocol/render.js';
import type { ScoredTrajectory } from '../rl/rewards.js';
import { DEFAULT_K, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
import type { EpisodeSummary } from '../wire/episodes.js';
import { CALL_FUNCTION, callableFunctions, SEARCH_FUNCTION } from './functions.js';
import { chatSystemPrompt } from './prompt.js';

/** A saved trajectory as the export reads it: what the rewards read, and the summary members that shaped its turns. */
export type ExportedTrajectory = ScoredTrajectory &
  Partial<
    Pick<EpisodeSummary, 'seed' | 'k' | 'max_turns' | 'max_calls_per_turn' | 'max_observation_chars' | 'system_prompt'>
  >;

/**
 * `string`: each call's arguments as a JSON string (OpenAI's form, one Arrow type whatever the tool); `object`: as
 * objects (for chat templates that `tojson` them).
 */
export type ArgumentsForm = 'string' | 'object';

export type RowMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string | Record<string, unknown> };
      }[];
    }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

/**
 * One Hugging Face chat row, the form TRL's SFTTrainer reads: `messages` with `tool_calls` and `tool` messages, and
 * `tools` as a JSON string (TRL parses it; a list of schemas that differ row to row would not fit one Arrow column).
 */
export interface ChatRow {
  messages: RowMessage[];
  tools: string;
  task_id?: string;
  seed?: number;
  /** The protocol the trajectory was taken in (the row is in chat form whatever it was). */
  source_protocol?: string;
}

export type ChatRowResult = { row: ChatRow } | { skipped: string };

/**
 * A finished trajectory, in any protocol, as the conversation a `chat` episode of the same task would have held: the
 * chat system prompt and the task, then per turn that ran actions an assistant message whose `tool_calls` are its
 * searches (`search_tool`) and calls (`call_tool`, references bound, as the step sent them) with the turn's reasoning
 * as content, a `tool` message per action rendered as a chat episode renders it, and the final answer. Library
 * tools are called through `call_tool`, so `tools` is the two functions every chat episode offers from the start.
 * Rejected turns ran nothing and are left out; a trajectory without a final answer is skipped.
 */
export function chatRow(
  trajectory: ExportedTrajectory,
  tools: ReadonlyMap<string, Tool>,
  form: ArgumentsForm = 'string',
): ChatRowResult {
  if (!trajectory.task) return { skipped: 'the episode had no task: a row needs its query' };
  if (trajectory.answer === undefined) return { skipped: 'the episode gave no final answer' };
  const k = trajectory.k ?? DEFAULT_K;
  const limits = {
    maxTurns: trajectory.max_turns ?? DEFAULT_MAX_TURNS,
    maxCallsPerTurn: trajectory.max_calls_per_turn ?? DEFAULT_MAX_CALLS_PER_TURN,
    k,
  };
  const messages: RowMessage[] = [
    // Rows call library tools through call_tool: the prompt a `native_tools: false` chat episode opens with.
    { role: 'system', content: chatSystemPrompt(limits, trajectory.system_prompt ?? 'full', false) },
    { role: 'user', content: trajectory.task.query },
  ];
  const steps = new Map(trajectory.steps.map((s) => [s.step, s]));
  const described = new Set<string>();
  const args = (value: Record<string, unknown>) => (form === 'string' ? JSON.stringify(value) : value);
  for (const turn of trajectory.turns) {
    if (turn.answer !== undefined) {
      messages.push({ role: 'assistant', content: turn.answer });
      break;
    }
    const step = turn.step === undefined ? undefined : steps.get(turn.step);
    if (turn.rejected || !step) continue;
    if (step.actions.some((a) => a.type === 'tool_call' && 'truncated' in a))
      return { skipped: `turn ${turn.turn}: a call's arguments were too large to keep in the trajectory` };
    const calls = step.actions.map((action, i) => {
      const id = `call_${turn.turn}_${i + 1}`;
      if (action.type === 'search_tool')
        return {
          id,
          name: SEARCH_FUNCTION,
          arguments: { query: action.query, ...(action.k !== undefined && action.k !== k ? { k: action.k } : {}) },
        };
      return { id, name: CALL_FUNCTION, arguments: { tool: action.tool, arguments: action.arguments } };
    });
    messages.push({
      role: 'assistant',
      content: reasoning(turn.text),
      tool_calls: calls.map(({ id, name, arguments: a }) => ({
        id,
        type: 'function',
        function: { name, arguments: args(a) },
      })),
    });
    const share =
      trajectory.max_observation_chars === undefined
        ? Number.MAX_SAFE_INTEGER
        : Math.floor(trajectory.max_observation_chars / calls.length);
    // As the episode's run state counts them: the tools this step surfaced for the first time are described in full.
    const fresh = new Set(
      step.observations
        .flatMap((o) => (o.type === 'search_tool' ? o.results.map((hit) => hit.id) : []))
        .filter((id) => !described.has(id)),
    );
    step.observations.forEach((observation, i) => {
      const call = calls[i]!;
      const content =
        observation.type === 'search_tool'
          ? fitSearch(
              { search: undefined, query: observation.query, results: searchResults(observation, tools, fresh) },
              share,
            )
          : renderCallWithin(observation, share);
      messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content });
    });
    for (const id of fresh) described.add(id);
  }
  const row: ChatRow = { messages, tools: JSON.stringify(callableFunctions(k, [])) };
  if (trajectory.task.id) row.task_id = trajectory.task.id;
  if (trajectory.seed !== undefined) row.seed = trajectory.seed;
  if (trajectory.protocol) row.source_protocol = trajectory.protocol;
  return { row };
}

/** What the model wrote before its calls: a text protocol's `<think>`, a chat turn's content. */
function reasoning(text: string): string {
  if (text.trimStart().startsWith('{')) {
    try {
      const message = JSON.parse(text) as { content?: unknown };
      return typeof message.content === 'string' ? message.content : '';
    } catch {
      // Not a recorded OpenAI message: read as text below.
    }
  }
  return parseMessage(text).think ?? '';
}
