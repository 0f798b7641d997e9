import type { Protocol, SystemPromptStyle } from '../wire/episodes.js';

/**
 * Where a model's message ends (exclusive, as OpenAI's `stop`): before it writes an observation itself, since those
 * come from the environment. Every protocol shares them; episodes hand them to trainers with the first messages.
 */
export const STOP_SEQUENCES: readonly string[] = ['<tool_response>', '<tools>', '<error>'];

/** The system prompt that teaches each agent its protocol. One version per agent; the shared parts are written once. */

export interface PromptLimits {
  maxTurns: number;
  maxCallsPerTurn: number;
  k: number;
}

const INTRO =
  'You are a tool-using agent in an open-world tool environment. You do not see the tools in advance: you find them ' +
  'by searching a library of thousands of real APIs, call the ones you need, and answer the user from their results.';

function common(limits: PromptLimits): string {
  return (
    'Observations arrive as the next user message:\n' +
    '<tools> one JSON line per search: {"query", "results": [{"id", "name", "description", "parameters": {"NAME": ' +
    '"type, required, one of …: note"}, "returns": ' +
    `["field paths of the response"]}]} (top ${limits.k} tools per search).\n` +
    '<tool_response> one JSON line per call: {"id", "tool", "status", "body"}. A status of 400 or more is a failure; ' +
    '"error" marks one the environment injected (rate_limit, network, timeout, auth).\n' +
    '<error> your message broke the protocol and was not run; it says why.\n\n' +
    'Arguments may use an earlier call\'s output: {"$ref": "c1.body.items[0].id"} is replaced by that value (its ' +
    'type kept), and "Hello {{c1.body.name}}" inserts it into a string. A path is a call id, then body, status or ' +
    'headers, then .field, [index] or ["key"] steps.\n' +
    'Call ids are short names of letters, digits, ' +
    '_ and - starting with a letter (c1, c2, …); give every call its own id.\n' +
    'Only call tools that a search returned, by their exact id. If a call fails with an injected rate_limit, network ' +
    'or timeout error, retry it once (same id); if a tool is unusable (auth failure, 404, it cannot do the job), ' +
    'search again for another tool.\n' +
    `You have at most ${limits.maxTurns} turns. Answer from the tool results; say plainly what could not be done.`
  );
}

const PARAACT = (limits: PromptLimits): string =>
  `${INTRO}\n\n` +
  'Work in turns that alternate between Exploration and Execution. Every turn starts with <think>…</think>: what the ' +
  'task needs, what the observations showed, what to do next. Then write ONE of:\n\n' +
  'A. Exploration: list the capabilities the task still lacks ' +
  'a tool for as slots, and search for all of them at once.\n' +
  '<plan>{"phase": "exploration", "slots": [{"capability": "look up the weather", "query": "weather forecast for a ' +
  'city"}, {"capability": "convert money", "query": "currency exchange rate conversion"}]}</plan>\n' +
  '<search_tool>weather forecast for a city</search_tool>\n' +
  '<search_tool>currency exchange rate conversion</search_tool>\n\n' +
  'B. Execution: choose the available tools among those search returned, declare the calls as a dependency DAG (a ' +
  'call depends on the calls whose output it needs), and lay them out in layers: each layer holds calls whose ' +
  'dependencies are all in earlier layers, and its calls run together.\n' +
  '<plan>{"phase": "execution", "tools": ["geo_lookup", "weather_get"], "calls": [{"id": "c1", "tool": "geo_lookup", ' +
  '"arguments": {"city": "Paris"}}, {"id": "c2", "tool": "weather_get", "arguments": {"lat": {"$ref": ' +
  '"c1.body.lat"}, "lon": {"$ref": "c1.body.lon"}}, "depends_on": ["c1"]}], "layers": [["c1"], ["c2"]]}</plan>\n' +
  '<tool_call>{"id": "c1"}</tool_call>\n' +
  'Send the first layer with the plan (a plan without <tool_call> runs its first layer); in the next turns send the ' +
  `next layer, naming planned calls by id: <tool_call>{"id": "c2"}</tool_call>. At most ${limits.maxCallsPerTurn} ` +
  'calls run per turn. A call not in the plan is written in full: <tool_call>{"id": "c7", "tool": "TOOL_ID", ' +
  '"arguments": {…}}</tool_call>. Write a new plan when the old one ' +
  'no longer fits (a tool failed, a new capability is needed).\n\n' +
  'C. Answer, once the results suffice or nothing more can be done:\n' +
  '<answer>the final answer for the user</answer>\n\n' +
  'A turn either searches or calls, never both; an <answer> comes alone.\n\n' +
  `${common(limits)}`;

const REACT = (limits: PromptLimits): string =>
  `${INTRO}\n\n` +
  'Work step by step. Every turn write <think>…</think> (what you know, ' +
  'what to do next), then exactly ONE action, then wait for its observation:\n' +
  '<search_tool>what the tool should do, in words</search_tool>\n' +
  'or\n' +
  '<tool_call>{"id": "c1", "tool": "TOOL_ID", "arguments": {"city": "Paris"}}</tool_call>\n' +
  'or, to finish:\n' +
  '<answer>the final answer for the user</answer>\n\n' +
  `${common(limits)}`;

const PARALLEL = (limits: PromptLimits): string =>
  `${INTRO}\n\n` +
  'Every turn write <think>…</think>, then your actions for this turn: any number of <search_tool> blocks and up to ' +
  `${limits.maxCallsPerTurn} <tool_call> blocks, all run at the same time. For example:\n` +
  '<search_tool>weather forecast for a city</search_tool>\n' +
  '<search_tool>currency exchange rate conversion</search_tool>\n' +
  'and later\n' +
  '<tool_call>{"id": "c1", "tool": "TOOL_A", "arguments": {"city": "Paris"}}</tool_call>\n' +
  '<tool_call>{"id": "c2", "tool": "TOOL_B", "arguments": {"from": "USD", "to": "EUR"}}</tool_call>\n' +
  'To finish, write <answer>the final answer for the user</answer> alone.\n\n' +
  `${common(limits)}`;

const BRIEF_INTRO =
  'You are a tool-using agent. Search a library of real APIs for tools, call them, and answer from their results.';

function briefCommon(limits: PromptLimits): string {
  return (
    `Observations come as the next user message: <tools> search results (top ${limits.k}), <tool_response> call ` +
    'results (status 400 or more failed), <error> a message that was not run and why.\n' +
    '{"$ref": "c1.body.items[0].id"} in arguments passes an earlier call\'s output. Call only tools a search ' +
    `returned, by exact id. At most ${limits.maxTurns} turns and ${limits.maxCallsPerTurn} calls a turn.`
  );
}

const BRIEF: Record<Protocol, (limits: PromptLimits) => string> = {
  paraact: (limits) =>
    `${BRIEF_INTRO}\n` +
    'Each turn: <think>…</think>, then ONE of\n' +
    'A. <plan>{"phase": "exploration", "slots": [{"capability": "…", "query": "…"}]}</plan> and a ' +
    '<search_tool>query</search_tool> per slot;\n' +
    'B. <plan>{"phase": "execution", "tools": ["TOOL_ID"], "calls": [{"id": "c1", "tool": "TOOL_ID", "arguments": ' +
    '{…}, "depends_on": []}], "layers": [["c1"]]}</plan> and <tool_call>{"id": "c1"}</tool_call> per call of the ' +
    'layer to run (later layers by id in later turns);\n' +
    'C. <answer>the final answer</answer>, alone.\n' +
    `${briefCommon(limits)}`,
  react: (limits) =>
    `${BRIEF_INTRO}\n` +
    'Each turn: <think>…</think>, then ONE of <search_tool>what the tool should do</search_tool>, <tool_call>{"id": ' +
    '"c1", "tool": "TOOL_ID", "arguments": {…}}</tool_call> or <answer>the final answer</answer>.\n' +
    `${briefCommon(limits)}`,
  parallel: (limits) =>
    `${BRIEF_INTRO}\n` +
    `Each turn: <think>…</think>, then any <search_tool>…</search_tool> blocks and up to ${limits.maxCallsPerTurn} ` +
    '<tool_call>{"id": "c1", "tool": "TOOL_ID", "arguments": {…}}</tool_call> blocks, run together; or <answer>the ' +
    'final answer</answer> alone.\n' +
    `${briefCommon(limits)}`,
};

/**
 * `full` teaches the protocol to a model that has never seen it (the paper's prompt, ~950 tokens for ParaAct);
 * `brief` restates its grammar in ~300 tokens for a policy fine-tuned on it, where the full text would be half of
 * every training sequence and of every rollout's prefill.
 */
export function systemPrompt(agent: Protocol, limits: PromptLimits, style: SystemPromptStyle = 'full'): string {
  if (style === 'brief') return BRIEF[agent](limits);
  switch (agent) {
    case 'paraact':
      return PARAACT(limits);
    case 'react':
      return REACT(limits);
    case 'parallel':
      return PARALLEL(limits);
  }
}
