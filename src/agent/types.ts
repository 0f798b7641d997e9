import type { CreatedEpisode } from '../wire/episodes.js';
import {
  EPISODE_PROTOCOLS,
  type AssistantMessage,
  type ChatToolCall,
  type EpisodeProtocol,
  type EpisodeTask,
  type Finish as EpisodeFinish,
  type FunctionSpec,
  type SystemPromptStyle,
  type ToolParser,
  type Trajectory,
} from '../wire/episodes.js';
import type { Rewards } from '../rl/rewards.js';
import type { InjectedErrorKind } from '../simulator/types.js';
import type { RunState } from '../protocol/state.js';
import type { Tool } from '../library/tool.js';

/**
 * The agent loops the client runs: one per protocol an episode's turns speak (the paper's ParaAct, its two baselines,
 * and native tool calling).
 */
export const AGENTS = EPISODE_PROTOCOLS;
export type AgentName = EpisodeProtocol;

/**
 * A task an agent is given: the episode's task (its `answer`, when it has one, is what a rule compares the final answer
 * with).
 */
export type AgentTask = EpisodeTask;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** The chat agent: an assistant message's native tool calls. */
  tool_calls?: ChatToolCall[];
  /** The chat agent: the call a tool message answers. */
  tool_call_id?: string;
}

export interface TokenUsage {
  prompt: number;
  completion: number;
}

/** What writes the agent's next turn: a model behind an OpenAI-compatible endpoint, a local GGUF, or the heuristic. */
export interface Policy {
  /** `heuristic`, `openai:MODEL@URL`, `gguf:FILE`. */
  readonly name: string;
  /**
   * It can drive the chat agent: it writes native tool calls (the heuristic; an OpenAI-compatible model given `tools`).
   */
  readonly nativeTools?: boolean;
  /**
   * The next assistant message (tagged text: <think>, <plan>, <search_tool>, <tool_call>, <answer>) and its token
   * usage. For the chat agent a policy may give an OpenAI assistant message with `tool_calls` instead (`text` is then
   * its content), or raw text in the model's own tool-call format, which the episode's tool parser reads.
   */
  next(
    messages: readonly ChatMessage[],
    context: PolicyContext,
  ): Promise<{ text: string; message?: AssistantMessage; usage: TokenUsage }>;
  close?(): Promise<void>;
}

export interface PolicyContext {
  agent: AgentName;
  task: AgentTask;
  /** 1-based turn about to be written. */
  turn: number;
  signal?: AbortSignal;
  /** The run's turn cap (the policy may answer on the last turn). Added by the agent client; absent means 15. */
  maxTurns?: number;
  /** Most tool calls the client dispatches in one turn. Added by the agent client; absent means 3. */
  maxCallsPerTurn?: number;
  /**
   * What the run has seen so far, as data: the tools surfaced (full records), every search and call outcome, the
   * execution plan being followed. The same facts the observation messages render as text; the heuristic policy
   * reads them here instead of re-parsing its own transcript. Added by the agent client.
   */
  state?: Readonly<RunState>;
  /** The chat agent: the functions callable now, as OpenAI's `tools` list. Added by the agent client. */
  functions?: readonly FunctionSpec[];
  /**
   * The run's seed (its episode's: the one the caller chose, else the one the server picked). A policy that samples
   * mixes it with the turn, so every run samples its own stream and a rerun with the same seed repeats. Added by the
   * agent client.
   */
  seed?: number;
}

/** One successful or failed tool call as the run saw it. */
export interface CallRecord {
  tool: string;
  status: number;
  /** 2xx answered. */
  ok: boolean;
  turn: number;
  error?: string;
  /** Set when the simulator injected the failure (rate limit, network, timeout, missing key). */
  injected?: InjectedErrorKind;
}

/** Why a run ended: the episode's reasons, or a failure of the run itself. */
export type Finish = EpisodeFinish | 'error';

/** The outcome of one agent run on one task: what `eval` scores. */
export interface AgentRun {
  task_id: string;
  agent: AgentName;
  policy: string;
  episode_id: string;
  /** The text inside <answer>, when the agent gave one. */
  answer?: string;
  finish: Finish;
  /** Set when finish is `error`. */
  error?: string;
  turns: number;
  /** search_tool and tool_call actions over the run. */
  actions: number;
  tokens: TokenUsage;
  wall_ms: number;
  calls: CallRecord[];
  /** Tool ids surfaced by search, in first-seen order. */
  surfaced: string[];
  /** The model's messages, turn by turn. */
  messages: ChatMessage[];
  /** The episode's seed. */
  seed?: number;
  /** The episode as the server recorded it; absent when it could not be fetched (then `trajectory_error` says why). */
  trajectory?: Trajectory;
  /**
   * Why the trajectory is missing: the run itself is complete (its calls, answer, tokens), only the server's record is
   * not.
   */
  trajectory_error?: string;
  /**
   * The episode's hierarchical rewards as the server scored them; absent when they could not be fetched
   * (`rewards_error`).
   */
  rewards?: Rewards;
  rewards_error?: string;
}

/** The episode's budgets a run is given: `runAgent`'s, and `runEval`'s for each of its runs. */
export interface EpisodeBudgets {
  /** Default 15 (the paper's cap). */
  maxTurns?: number;
  /** Search results per query; default 3 (the paper's top-3). */
  k?: number;
  /** Episode error rate; default the server's. */
  errorRate?: number;
  /** Characters of one observation (the episode's `max_observation_chars`); default whole. */
  maxObservationChars?: number;
  /** The episode's `system_prompt`; default the server's (`full`). */
  systemPrompt?: SystemPromptStyle;
  /** The chat agent: how its episode reads the policy's raw text (`tool_parser`); default hermes. */
  toolParser?: ToolParser;
}

export interface RunAgentOptions extends EpisodeBudgets {
  /** ToolEnv server base URL (`http://127.0.0.1:8080`). */
  server: string;
  apiKey?: string;
  agent: AgentName;
  policy: Policy;
  task: AgentTask;
  /**
   * Restricts the episode to these tool ids (the task's tool set): search finds only them, calls to others are refused.
   */
  tools?: string[];
  /** Most tool calls dispatched in one turn; default 3 (the paper's). */
  maxCallsPerTurn?: number;
  /** Episode seed (error-injection stream): eval passes the task's own seed when it has one. */
  seed?: number;
  /** The judge the rewards are scored with (`openai:MODEL@URL`); default the server's. */
  judge?: string;
  /**
   * An episode already made, a member of a group (`POST /v1/groups`) made with these options: the run takes its turns
   * and leaves it live, without rewards or trajectory, for the caller to read the group's advantages and delete it.
   */
  episode?: CreatedEpisode;
  /** Tool records shared by runs on one server, each fetched once: many runs surface the same tools. */
  records?: Map<string, Tool>;
  signal?: AbortSignal;
}
