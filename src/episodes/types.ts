import type { Problem } from '../simulator/problem.js';
import type { CallControls, InjectedErrorKind, ResponseSource } from '../simulator/types.js';

/**
 * The episode API's wire shapes (`POST /v1/episodes`, `POST /v1/episodes/{id}/step`, `GET /v1/episodes/{id}`), shared by
 * the server, the MCP bridge and the agent client. Published as schemas/trajectory.schema.json.
 */

export interface EpisodeTask {
  id: string;
  query: string;
  reference_tools?: string[];
}

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
  steps: number;
  actions: number;
  searches: number;
  calls: number;
  /** Calls answered with a status ≥ 400 (injected or not). */
  failed_calls: number;
  injected_errors: number;
}

/** `POST /v1/episodes` answer and the head of `GET /v1/episodes/{id}`. */
export interface EpisodeSummary {
  id: string;
  seed: number;
  error_rate: number;
  max_steps: number;
  task?: EpisodeTask;
  tools?: string[];
  created_at: string;
  done: boolean;
  /** Every tool surfaced by search so far, in first-seen order. */
  working_set: string[];
  counts: EpisodeCounts;
}

/** `GET /v1/episodes/{id}`: the summary and every step. */
export interface Trajectory extends EpisodeSummary {
  steps: TrajectoryStep[];
}
