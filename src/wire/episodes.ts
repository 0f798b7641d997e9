/**
 * The episode API's wire shapes (`POST /v1/episodes`, `POST /v1/episodes/{id}/step`, `GET /v1/episodes/{id}`), shared
 * by the server, the MCP bridge and the agent client. They are schemas/trajectory.schema.json's, derived by
 * scripts/wire-types.mjs; written here are only the forms the code holds after parsing a request (defaults filled, text
 * parts joined) and the constants the schemas list.
 */
import type { Verdicts } from './rewards.js';
import type {
  AssistantMessage as AssistantMessageRequest,
  EpisodeSearchHit,
  EpisodeTask,
  RewardRequest,
  SearchAction,
  ToolCallAction as ToolCallRequest,
  ToolParser,
  TurnRequest,
} from './schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type {
  ChatObservation,
  ChatToolCall,
  ControllerState,
  CreatedEpisode,
  EpisodeConfig,
  EpisodeCounts,
  EpisodeSummary,
  EpisodeTask,
  Finish,
  FunctionSpec,
  Observation,
  RewardRequest,
  SearchAction,
  SearchObservation,
  StepRequest,
  StepResult,
  StoredAction,
  ToolCallObservation,
  ToolParser,
  Trajectory,
  TrajectoryStep,
  TruncatedToolCallAction,
  TurnPlan,
  TurnRecord,
  TurnRequest,
  TurnResult,
} from './schema-types.js';

/** An assistant message as an episode reads it: `parseTurn` joins OpenAI's text parts into one string. */
export type AssistantMessage = Omit<AssistantMessageRequest, 'content'> & { content?: string | null };
/** A rewards request as `parseRewardRequest` gives it: the verdicts' words upper-cased. */
export type ParsedRewardRequest = Omit<RewardRequest, 'verdicts'> & { verdicts?: Verdicts };
/** A turn's body as `parseTurn` gives it: its message read as above. */
export type ParsedTurn = Omit<TurnRequest, 'message'> & { message?: AssistantMessage };

/** A tool call as an episode runs and keeps it: `parseStep` fills its arguments (`{}` when none were sent). */
export type ToolCallAction = ToolCallRequest & Required<Pick<ToolCallRequest, 'arguments'>>;
/** An action as an episode runs it, its defaults filled (a StepRequest's actions are the schema's `Action`). */
export type Action = SearchAction | ToolCallAction;

/**
 * A task line's members that are the episode's task (a line's `tools`, `seed` and the like are the episode's options,
 * not its task).
 */
export function episodeTask(task: EpisodeTask): EpisodeTask {
  return {
    id: task.id,
    query: task.query,
    ...(task.reference_tools ? { reference_tools: task.reference_tools } : {}),
    ...(task.answer !== undefined ? { answer: task.answer } : {}),
    ...(task.expect !== undefined ? { expect: task.expect } : {}),
  };
}

/** The loops an episode's text turns speak: the paper's ParaAct and its two baselines (§4). */
export const PROTOCOLS = ['paraact', 'react', 'parallel'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
/**
 * What an episode's turns speak: a tagged-text protocol, or `chat`, native tool calling (OpenAI `tool_calls`, or a
 * model's own template).
 */
export const EPISODE_PROTOCOLS = [...PROTOCOLS, 'chat'] as const;
export type EpisodeProtocol = (typeof EPISODE_PROTOCOLS)[number];
/**
 * How a `chat` episode reads a turn given as raw text: `hermes` `<tool_call>{"name", "arguments"}</tool_call>` blocks
 * (Qwen2.5/3, Hermes), `llama3` `{"name", "parameters"}` objects (Llama 3.1+, `<|python_tag|>` optional), `mistral`
 * `[TOOL_CALLS][{"name", "arguments"}, …]`.
 */
export const TOOL_PARSERS = ['hermes', 'llama3', 'mistral'] as const satisfies readonly ToolParser[];
/**
 * A chat episode's own `tools` are offered as native functions from the start up to this many; past it search finds
 * them (a prompt listing more would crowd out the task).
 */
export const MAX_NATIVE_TOOLS = 64;
/** The system prompt's length: `full` teaches the protocol, `brief` restates its grammar for a policy trained on it. */
export const SYSTEM_PROMPTS = ['full', 'brief'] as const;
export type SystemPromptStyle = (typeof SYSTEM_PROMPTS)[number];

/** A search result as an episode's observation lists it. */
export type SearchHit = EpisodeSearchHit;
