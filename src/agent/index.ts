/** The agent client's public surface: what `toolenv eval` and library users import. */
export { runAgent } from './run.js';
export { createPolicy, POLICY_SPECS, type PolicyOptions } from './policies/create.js';
export { heuristicPolicy } from './heuristic/policy.js';
export { openaiPolicy, type OpenAIPolicyOptions } from './policies/openai.js';
export { ggufPolicy, type GgufPolicyOptions } from './policies/gguf.js';
export { parseMessage } from '../protocol/parse.js';
export { checkMessage } from '../protocol/check.js';
export { systemPrompt } from '../protocol/prompts.js';
export { DEFAULT_K, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
export * from './types.js';
export type { RunState, CallOutcome, SearchOutcome, NotRun, PlanState } from '../protocol/state.js';
