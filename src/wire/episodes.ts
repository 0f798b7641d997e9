import type { Verdicts } from './rewards.js';
import type { Problem } from '../simulator/problem.js';
import type { CallControls, InjectedErrorKind, ResponseSource } from '../simulator/types.js';
import type { Coercion } from '../simulator/lax.js';
import type {
  ChatObservation,
  ControllerState,
  CreatedEpisode,
  EpisodeConfig,
  EpisodeCounts,
  EpisodeSummary,
  EpisodeTask,
  Finish,
  FunctionSpec,
  SearchAction,
  ToolParser,
  TurnPlan,
} from './schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type {
  ChatObservation,
  ControllerState,
  CreatedEpisode,
  EpisodeConfig,
  EpisodeCounts,
  EpisodeSummary,
  EpisodeTask,
  Finish,
  FunctionSpec,
  SearchAction,
  ToolParser,
  TurnPlan,
};

/**
 * The episode API's wire shapes (`POST /v1/episodes`, `POST /v1/episodes/{id}/step`, `GET /v1/episodes/{id}`), shared by
 * the server, the MCP bridge and the agent client. Published as schemas/trajectory.schema.json.
 */

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
export const TOOL_PARSERS = ['hermes', 'llama3', 'mistral'] as const satisfies readonly ToolParser[];
/** A chat episode's own `tools` are offered as native functions from the start up to this many; past it search finds them (a prompt listing more would crowd out the task). */
export const MAX_NATIVE_TOOLS = 64;
/** The system prompt's length: `full` teaches the protocol, `brief` restates its grammar for a policy trained on it. */
export const SYSTEM_PROMPTS = ['full', 'brief'] as const;
export type SystemPromptStyle = (typeof SYSTEM_PROMPTS)[number];

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

/** `GET /v1/episodes/{id}`: the summary, every step and every text turn. */
export interface Trajectory extends EpisodeSummary {
  steps: TrajectoryStep[];
  turns: TurnRecord[];
}
