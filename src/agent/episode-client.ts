import type {
  AssistantMessage,
  CreatedEpisode,
  EpisodeConfig,
  RewardRequest,
  Trajectory,
  TurnResult,
} from '../wire/episodes.js';
import type { EpisodeSummary } from '../wire/episodes.js';
import type { Rewards } from '../rl/rewards.js';
import type { Advantage, ComponentRewards } from '../rl/advantages.js';
import type { Tool } from '../library/tool.js';
import { fetchFailure } from './fetch-failure.js';

/** A ToolEnv answer other than the one asked for: the status and the problem's detail. */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    readonly route: string,
    detail: string,
  ) {
    super(`${route} answered ${status}: ${detail}`);
    this.name = 'ServerError';
  }
}

/** `POST /v1/groups` answer, as far as a client reads it. */
export interface CreatedGroup {
  id: string;
  n: number;
  seed: number;
  episodes: CreatedEpisode[];
}

/** One member of `GET /v1/groups/{id}/advantages`: its rewards and advantages (null when flagged). */
export type MemberAdvantage = ComponentRewards & Advantage & { id: string; flagged?: string };

/** The episode API and the tool records, over HTTP: what the agent client needs from a ToolEnv server. */
export class EpisodeClient {
  private readonly base: string;

  constructor(
    server: string,
    private readonly apiKey?: string,
    private readonly signal?: AbortSignal,
  ) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new Error(`server ${JSON.stringify(server)} is not a URL (http://host:port)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`server ${server} must be an http or https URL`);
    this.base = url.toString().replace(/\/+$/, '');
  }

  create(config: EpisodeConfig): Promise<CreatedEpisode> {
    return this.request('POST', '/v1/episodes', config);
  }

  /**
   * One turn: the assistant message in (text, or a chat episode's OpenAI message), the next observation (and, asked
   * for, the run state) out.
   */
  turn(
    id: string,
    turn: string | { text: string } | { message: AssistantMessage },
    state = false,
  ): Promise<TurnResult> {
    const body = typeof turn === 'string' ? { text: turn } : turn;
    return this.request('POST', `/v1/episodes/${encodeURIComponent(id)}/turns`, state ? { ...body, state } : body);
  }

  rewards(id: string, request: RewardRequest = {}): Promise<Rewards> {
    return this.request('POST', `/v1/episodes/${encodeURIComponent(id)}/rewards`, request);
  }

  get(id: string): Promise<Trajectory> {
    return this.request('GET', `/v1/episodes/${encodeURIComponent(id)}`);
  }

  async delete(id: string): Promise<void> {
    await this.request('DELETE', `/v1/episodes/${encodeURIComponent(id)}`);
  }

  /** `POST /v1/groups`: n episodes of one task under one seed, for group-relative advantages. */
  group(config: EpisodeConfig & { n: number }): Promise<CreatedGroup> {
    return this.request('POST', '/v1/groups', config);
  }

  /** `GET /v1/groups/{id}/advantages` (Eq. 7, decoupled): each member's rewards and advantages, in member order. */
  advantages(id: string): Promise<{ id: string; episodes: MemberAdvantage[] }> {
    return this.request('GET', `/v1/groups/${encodeURIComponent(id)}/advantages`);
  }

  /** Ends the group and its episodes. */
  async deleteGroup(id: string): Promise<void> {
    await this.request<{ episodes: EpisodeSummary[] }>('DELETE', `/v1/groups/${encodeURIComponent(id)}`);
  }

  tool(id: string): Promise<Tool> {
    return this.request('GET', `/v1/tools/${encodeURIComponent(id)}`);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const route = `${method} ${path}`;
    // One signal per request, tied to the run's: fetch keeps its abort listener on the signal it is given until the
    // request is collected, so an eval of thousands of requests on one signal would pile them up.
    const controller = new AbortController();
    const abort = () => controller.abort(this.signal?.reason);
    if (this.signal?.aborted) abort();
    this.signal?.addEventListener('abort', abort, { once: true });
    let response: Response;
    let text: string;
    try {
      try {
        response = await fetch(`${this.base}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
      } catch (error) {
        if (this.signal?.aborted) throw error;
        throw new Error(`${route}: cannot reach ${this.base} (${fetchFailure(error)})`);
      }
      text = await response.text();
    } finally {
      this.signal?.removeEventListener('abort', abort);
    }
    if (!response.ok) throw new ServerError(response.status, route, problemDetail(text));
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ServerError(response.status, route, `an answer that is not JSON: ${text.slice(0, 200)}`);
    }
  }
}

function problemDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as {
      detail?: unknown;
      title?: unknown;
      errors?: { path?: string; message?: string }[];
    };
    const errors = Array.isArray(problem.errors)
      ? problem.errors.slice(0, 3).map((e) => `${e.path ?? ''} ${e.message ?? ''}`.trim())
      : [];
    const head =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : text.slice(0, 200);
    return [head, ...errors].join('; ');
  } catch {
    return text.slice(0, 200) || 'no body';
  }
}
