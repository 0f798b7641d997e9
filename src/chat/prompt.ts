import type { PromptLimits } from '../protocol/prompts.js';
import type { SystemPromptStyle } from '../wire/episodes.js';

/**
 * The system prompt of a `chat` episode. The functions themselves travel as `tools` (the model's chat template
 * renders them), so the prompt says only how the environment works: tools are found by search, calls of one message
 * run together, a message without calls is the answer.
 */
export function chatSystemPrompt(limits: PromptLimits, style: SystemPromptStyle = 'full', native = true): string {
  const call = native
    ? 'call them by their id, directly or through call_tool'
    : 'call them through call_tool with their id';
  if (style === 'brief') {
    return (
      `You are a tool-using agent. Find tools with search_tool, ${call}, and answer from their results in a message ` +
      `without tool calls. At most ${limits.maxTurns} turns and ${limits.maxCallsPerTurn} calls a turn.`
    );
  }
  return (
    "You are a tool-using agent in an open-world tool environment. You do not see the library's tools in advance: " +
    'call search_tool to find tools for what the task needs (it ' +
    `returns the top ${limits.k} with their parameters), then ${call}.\n` +
    "Calls in one message run together: make several at once when none needs another's result, and call a tool that " +
    'needs an earlier result in a later message. Each result comes back as a tool message: {"id", "tool", "status", ' +
    '"body"}; a status of 400 or more is a failure, and "error" marks one the environment injected (rate_limit, ' +
    'network, timeout, auth): retry it once. If a tool cannot do the job, search for another.\n' +
    'When the results suffice, answer the user in plain text, without a tool call; say plainly what could not be ' +
    `done. You have at most ${limits.maxTurns} turns and ${limits.maxCallsPerTurn} tool calls a turn.`
  );
}
