import type { RewardCoefficients, Verdicts } from './rewards.js';
import type { Problem } from '../simulator/problem.js';
import type { CallControls, InjectedErrorKind, ResponseSource } from '../simulator/types.js';
import type { Coercion } from '../simulator/lax.js';

/**
 * The episode API's wire shapes (`POST /v1/episodes`, `POST /v1/episodes/{id}/step`, `GET /v1/episodes/{id}`), shared by
 * the server, the MCP bridge and the agent client. Published as schemas/trajectory.schema.json.
 */

export interface EpisodeTask {
  id: string;
  query: string;
  reference_tools?: string[];
  /** Expected answer: a string the final answer must contain (case-insensitive), or strings it must all contain. Scores R_ans by rule. */
  answer?: string | string[];
}

/** A task line's members that are the episode's task (a line's `tools`, `seed` and the like are the episode's options, not its task). */
export function episodeTask(task: EpisodeTask): EpisodeTask {
  return {
    id: task.id,
    query: task.query,
    ...(task.reference_tools ? { reference_tools: task.reference_tools } : {}),
    ...(task.answer !== undefined ? { answer: task.answer } : {}),
  };
}

/** The loops an episode's text turns speak: the paper's ParaAct and its two baselines (§4). */
export const PROTOCOLS = ['paraact', 'react', 'parallel'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
/** What an episode's turns speak: a tagged-text protocol, or `chat`, native tool calling (OpenAI `tool_calls`, or a model's own template). */
export const EPISODE_PROTOCOLS = [...PROTOCOLS, 'chat'] as const;
export type EpisodeProtocol = (typeof EPISODE_PROTOCOLS)[number];
/**
 * How a `chat` episode reads a turn given as raw text: `hermes` `<tool_call>{"name", "arguments"}</tool_call>` blocks
 * (Qwen2.5/3, Hermes), `llama3` `{"name", "parameters"}` objects (Llama 3.1+, `<|python_tag|>` optional), `mistral`
 * `[TOOL_CALLS][{"name", "arguments"}, …]`.
 */
export const TOOL_PARSERS = ['hermes', 'llama3', 'mistral'] as const;
export type ToolParser = (typeof TOOL_PARSERS)[number];
/** A chat episode's own `tools` are offered as native functions from the start up to this many; past it search finds them (a prompt listing more would crowd out the task). */
export const MAX_NATIVE_TOOLS = 64;
/** The system prompt's length: `full` teaches the protocol, `brief` restates its grammar for a policy trained on it. */
export const SYSTEM_PROMPTS = ['full', 'brief'] as const;
export type SystemPromptStyle = (typeof SYSTEM_PROMPTS)[number];

/** `POST /v1/episodes` body; every member optional. */
export interface EpisodeConfig {
  /** Seeds the episode's error-injection stream; default a fresh one, reported back. */
  seed?: number;
  /** The episode's injected-error rate; default the server's. */
  error_rate?: number;
  task?: EpisodeTask;
  /** Restricts the episode to these tool ids: search finds only them, calls to others are 403. */
  tools?: string[];
  /** Steps after which the episode is done; default 50. */
  max_steps?: number;
  /** The protocol its turns speak; default paraact. */
  protocol?: EpisodeProtocol;
  /** `chat` only: how a turn given as raw text is read; default hermes. */
  tool_parser?: ToolParser;
  /**
   * `chat` only: offer found tools (and the episode's own) as native functions named by id (default true); false
   * offers `search_tool` and `call_tool` alone, for trainers whose tool list is fixed (TRL's environment_factory,
   * verl's tool config).
   */
  native_tools?: boolean;
  /** Search results per query in text turns; default 3 (the paper's top-3). */
  k?: number;
  /** Tool calls one text turn may dispatch; default 3. */
  max_calls_per_turn?: number;
  /** Text turns after which the episode is done; default 15 (the paper's cap). */
  max_turns?: number;
  /**
   * Characters of one text-turn observation; past it the observation is shrunk to fit and says so (default: whole).
   * A trainer sets it so the policy reads what its token budget holds.
   */
  max_observation_chars?: number;
  /** `brief` sends a ~300-token system prompt instead of the protocol's full teaching (default `full`). */
  system_prompt?: SystemPromptStyle;
  /** Overrides of Table 7's reward coefficients. */
  reward?: Partial<RewardCoefficients>;
}

export type SearchAction = { type: 'search_tool'; query: string; k?: number; id?: string };
export type ToolCallAction = {
  type: 'tool_call';
  tool: string;
  arguments: Record<string, unknown>;
  id?: string;
  /** Prism-style controls for this call (`Prefer: code=429…`), as a REST or tool-call request inside the episode sent them. */
  controls?: CallControls;
  /**
   * In a stored trajectory only (a request carrying it is refused): the arguments were too large to keep (over
   * 64 KiB of JSON, or past the episode's 1 MiB budget); `arguments` is then `{}`, `arguments_preview` holds the
   * first characters of their JSON (at most 512; none once the budget is spent) and this is the full JSON's size in bytes.
   */
  truncated?: number;
  arguments_preview?: string;
};
export type Action = SearchAction | ToolCallAction;

export interface SearchHit {
  id: string;
  name: string;
  description: string;
  category: string;
  score: number;
}

export type SearchObservation = {
  type: 'search_tool';
  id?: string;
  query: string;
  results: SearchHit[];
  /** Set when the search failed unexpectedly: a 500 problem naming why; `results` is then empty. */
  problem?: Problem;
  /**
   * In a stored trajectory only: the results were too large to keep (as for `ToolCallAction.truncated`); `results`
   * is then empty, `results_preview` holds the first characters of their JSON and this is the full JSON's size in bytes.
   */
  truncated?: number;
  results_preview?: string;
};
export type ToolCallObservation = {
  type: 'tool_call';
  id?: string;
  tool: string;
  status: number;
  body: unknown;
  source: ResponseSource;
  /** Set when the error was injected (rate limit, network, timeout, missing key). */
  error?: InjectedErrorKind;
  /** Response headers the simulated API sent (Retry-After…), when any. */
  headers?: Record<string, string>;
  /** Set when the episode's world state answered or changed the call (`created`, `read`, `updated`, `deleted`, `listed`, `missing`). */
  state?: string;
  /** Values the lax Rule layer coerced, so that rewards can see a call that was not typed as its schema asks. */
  coerced?: Coercion[];
  /** Undeclared arguments the Rule layer dropped. */
  ignored?: string[];
  /**
   * In a stored trajectory only: the body was too large to keep (over 64 KiB of JSON, or past the episode's 1 MiB
   * budget), `body` holds the first characters of its JSON (at most 512; none once the budget is spent) and this is
   * the full JSON's size in bytes.
   */
  truncated?: number;
};
export type Observation = SearchObservation | ToolCallObservation;

/** `POST /v1/episodes/{id}/step` body. */
export interface StepRequest {
  actions: Action[];
}

/** `POST /v1/episodes/{id}/step` answer: observations in action order. */
export interface StepResult {
  observations: Observation[];
  /** 1-based number of this step. */
  step: number;
  done: boolean;
}

export interface TrajectoryStep {
  step: number;
  /** ISO 8601 time the step arrived. */
  started_at: string;
  wall_ms: number;
  actions: Action[];
  observations: Observation[];
}

export interface EpisodeCounts {
  /** Text turns taken (rejected ones included). */
  turns: number;
  steps: number;
  actions: number;
  searches: number;
  calls: number;
  /** Calls answered with a status ≥ 400 (injected or not). */
  failed_calls: number;
  injected_errors: number;
}

/** Why a text-turn episode ended: an accepted <answer>, the turn cap, or the step limit. */
export type Finish = 'answer' | 'turn_cap' | 'episode_done';

/**
 * What the step reward reads of the controller (the plan in force) before a turn (Table 8): `need` no plan in force
 * or its DAG exhausted; `may` the last turn brought observations (results, tools, failures); `no` it brought
 * nothing (rejected, or every call held back); `answer` the turn is the final answer.
 */
export type ControllerState = 'need' | 'may' | 'no' | 'answer';

/** A turn's <plan> as the rewards read it. */
export interface TurnPlan {
  /** Absent when the block could not be read as a plan. */
  phase?: 'exploration' | 'execution';
  /** Parsed against its schema and, for an execution plan, a valid DAG over tools search returned. */
  valid: boolean;
  /** The same plan as the one in force (canonical JSON). */
  repeated: boolean;
  /** The turn ran, and the plan became the one in force. */
  accepted: boolean;
  /** Execution, accepted: the declared tools as written (duplicates kept: L1 reads them). */
  tools?: string[];
  /** Execution, accepted: each call and the calls of the plan it depends on (declared and implied by references). */
  calls?: { id: string; tool: string; depends_on: string[] }[];
  /** Execution, accepted: the execution flow, as written or else Kahn's layers. */
  layers?: string[][];
  /** Exploration: the slots' queries. */
  slots?: string[];
}

/** One text turn as recorded: the raw text, what it was read as, and what it did. */
export interface TurnRecord {
  turn: number;
  text: string;
  /** The structural check (r_base): a closed, non-empty <think>, every tag closed, valid JSON in the blocks, the protocol's turn shape. */
  well_formed: boolean;
  controller: ControllerState;
  plan?: TurnPlan;
  /** Why the message was not run, when it was not. */
  rejected?: string[];
  /** The episode step its actions ran as, when any ran. */
  step?: number;
  searches: { id: string; query: string; results: string[] }[];
  calls: { id: string; tool: string; status: number; ok: boolean; injected?: InjectedErrorKind }[];
  /** Calls the turn asked for that were held back (skipped, waiting, deferred, unbound). */
  not_run: { id: string; tool: string; kind: string; reason: string }[];
  answer?: string;
  /** The next user message, as sent. */
  observation: string;
  /**
   * In a stored trajectory only: the text or the observation was past the episode's budget for them (4 MiB); it is
   * then a preview (at most 512 characters, none once the budget is spent) and this is the full size in bytes.
   */
  text_truncated?: number;
  observation_truncated?: number;
}

/** One tool call of an assistant message, as OpenAI sends it (`arguments` a JSON string) or already parsed. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** A `chat` episode's turn as a message: OpenAI's assistant message. */
export interface AssistantMessage {
  role: 'assistant';
  content?: string | null;
  tool_calls?: ChatToolCall[];
}

/** What a `chat` turn answers: one `tool` message per call, in call order; a `user` message when the turn was not run and named no call. */
export type ChatObservation =
  | { role: 'tool'; tool_call_id: string; content: string }
  | { role: 'user'; content: string };

/** A function a `chat` episode offers, as OpenAI's `tools` list writes it. */
export interface FunctionSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** `POST /v1/episodes/{id}/turns` body: `text` (any protocol; a `chat` episode reads it with its tool parser) or, for `chat`, `message`. */
export interface TurnRequest {
  text?: string;
  message?: AssistantMessage;
  /** Answer the run state as data too (what the heuristic policy reads). */
  state?: boolean;
}

/** `POST /v1/episodes/{id}/turns` answer. */
export interface TurnResult {
  turn: number;
  /** Text protocols: the next user message. */
  observation?: { role: 'user'; content: string };
  /** `chat`: the messages that answer the turn (a `tool` message per call). */
  messages?: ChatObservation[];
  /** `chat`: the functions callable now (search surfaces more), as OpenAI's `tools` list: a trainer renders the next prompt with them. */
  functions?: FunctionSpec[];
  done: boolean;
  finish?: Finish;
  answer?: string;
  rejected?: string[];
  /** The episode step the turn ran as, when it ran any action. */
  step?: number;
  /** With `"state": true`: the run state (agent/state.ts RunStateView). */
  state?: unknown;
}

/** The rewards' verdict source given in `POST /v1/episodes/{id}/rewards`. */
export interface RewardRequest {
  verdicts?: Verdicts;
  /** A judge for this request (`openai:MODEL@URL`), or false to call none. */
  judge?: string | false;
}

/** `POST /v1/episodes` answer and the head of `GET /v1/episodes/{id}`. */
export interface EpisodeSummary {
  id: string;
  seed: number;
  error_rate: number;
  max_steps: number;
  protocol: EpisodeProtocol;
  /** `chat` only. */
  tool_parser?: ToolParser;
  /** `chat` only, when false. */
  native_tools?: false;
  k: number;
  max_calls_per_turn: number;
  max_turns: number;
  max_observation_chars?: number;
  /** Set when `brief`. */
  system_prompt?: SystemPromptStyle;
  finish?: Finish;
  answer?: string;
  /** Set when it differs from Table 7. */
  reward?: Partial<RewardCoefficients>;
  /** The group it belongs to. */
  group?: string;
  task?: EpisodeTask;
  tools?: string[];
  created_at: string;
  done: boolean;
  /** Every tool surfaced by search so far, in first-seen order. */
  working_set: string[];
  counts: EpisodeCounts;
}

/** `POST /v1/episodes` answer: the summary and the first messages a trainer feeds the model (system prompt, task). */
export interface CreatedEpisode extends EpisodeSummary {
  messages: { role: 'system' | 'user'; content: string }[];
  /** `chat`: the functions callable from the start (`search_tool`, `call_tool`, and the episode's `tools`), as OpenAI's `tools` list. */
  functions?: FunctionSpec[];
  /** Where the model's message ends (exclusive): the openers of the observations the environment writes. */
  stop: string[];
}

/** `GET /v1/episodes/{id}`: the summary, every step and every text turn. */
export interface Trajectory extends EpisodeSummary {
  steps: TrajectoryStep[];
  turns: TurnRecord[];
}
