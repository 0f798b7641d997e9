import { LRUCache } from 'lru-cache';
import type { Tool } from '../../library/tool.js';
import { schemaChecker } from './schema-check.js';
import { problem, type Problem } from '../problem.js';
import type { Arguments } from '../types.js';
import { apiInfo, type ApiInfo } from './api-info.js';
import { baseUrl, type UpstreamMap } from './base-urls.js';
import { forwardedCredentials, type CallerCredentials } from './credentials.js';
import { answerDiff } from './diff.js';
import { forwardRequest, send, UpstreamFailure, type RealAnswer } from './forward.js';
import { UpstreamLog } from './log.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type UpstreamMode } from './mode.js';

/** APIs whose forwarding facts are kept at once. */
const MAX_APIS = 256;

/** What `--upstream` and its companion flags set. */
export interface UpstreamSettings {
  mode: UpstreamMode;
  /** `--upstream-map`: overrides the specs' servers. */
  map?: UpstreamMap;
  /** Default DEFAULT_UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number;
  /** `--upstream-log`: the JSON Lines diff log (opened now). */
  log?: string;
}

export interface UpstreamOptions extends UpstreamSettings {
  /** The library's API documents by api id (`LibraryStore.apiDocument`). */
  documents: (apiId: string) => unknown;
}

/** A forwarded call: the real answer, or the problem that stands for it (no base URL, unreachable, timed out). */
export type Forwarded =
  | { ok: true; answer: RealAnswer; request: string }
  | { ok: false; problem: Problem; request?: string };

/** The real APIs behind a server (`serve --upstream`): where each API's calls go, forwarding them, the diff log. */
export class Upstream {
  readonly mode: UpstreamMode;
  readonly timeoutMs: number;
  private readonly documents: (apiId: string) => unknown;
  private readonly map: UpstreamMap | undefined;
  private readonly log: UpstreamLog | undefined;
  private readonly apis = new LRUCache<string, ApiInfo>({ max: MAX_APIS });
  private readonly validates = schemaChecker();

  constructor(options: UpstreamOptions) {
    this.mode = options.mode;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.documents = options.documents;
    this.map = options.map;
    this.log = options.log === undefined ? undefined : new UpstreamLog(options.log);
  }

  /** Whether calls go to the real API (record, passthrough) rather than to recordings (replay). */
  get forwards(): boolean {
    return this.mode !== 'replay';
  }

  /**
   * Whether a real answer of this status is stored (record mode): every answer but the transient ones — a 429 or a
   * 5xx replayed forever would teach that the API is always down.
   */
  records(status: number): boolean {
    return this.mode === 'record' && status !== 429 && status < 500;
  }

  /** Whether a diff log is kept: the simulated answer is then produced as well, to compare. */
  get logs(): boolean {
    return this.log !== undefined;
  }

  /** Sends a call that passed the Rule layer to the real API, with the caller's credentials for it. */
  async forward(tool: Tool, args: Arguments, credentials: CallerCredentials | undefined): Promise<Forwarded> {
    const base = baseUrl(tool, this.map);
    if ('reason' in base)
      return {
        ok: false,
        problem: problem(501, 'No upstream', `cannot forward ${tool.id}: ${base.reason}`, { tool: tool.id }),
      };
    const origin = tool.origin as Extract<Tool['origin'], { format: 'openapi' }>;
    const info = this.info(origin.api_id);
    const request = forwardRequest(
      tool,
      args,
      base.url,
      info.requestTypes.get(`${origin.method} ${origin.path}`),
      forwardedCredentials(credentials, info.keys),
    );
    const url = new URL(request.url);
    const named = `${request.method} ${url.origin}${url.pathname}`;
    try {
      return { ok: true, answer: await send(request, this.timeoutMs), request: named };
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      const [status, title] = error.kind === 'timeout' ? [504, 'Upstream timeout'] : [502, 'Upstream unreachable'];
      this.log?.write({
        time: new Date().toISOString(),
        mode: this.mode,
        tool: tool.id,
        arguments: args,
        request: named,
        error: { kind: error.kind, message: error.message },
      });
      return { ok: false, problem: problem(status, title, error.message, { tool: tool.id }), request: named };
    }
  }

  /** Logs how the simulator's answer to the same call differed from the real one. */
  logDiff(
    tool: Tool,
    args: Arguments,
    request: string,
    real: RealAnswer,
    simulated: { status: number; body: unknown; source: string },
    recorded: boolean,
  ): void {
    if (!this.log) return;
    const success = real.status === (tool.response_status ?? 200);
    const verdict =
      success && tool.response_schema !== undefined ? this.validates(tool.response_schema, real.body) : undefined;
    this.log.write({
      time: new Date().toISOString(),
      mode: this.mode,
      tool: tool.id,
      arguments: args,
      request,
      real: { status: real.status, ms: Math.round(real.ms * 10) / 10, schema_valid: verdict ?? null },
      simulated: { status: simulated.status, source: simulated.source },
      recorded,
      ...answerDiff(real, simulated),
    });
  }

  close(): Promise<void> {
    return this.log?.close() ?? Promise.resolve();
  }

  private info(apiId: string): ApiInfo {
    let info = this.apis.get(apiId);
    if (!info) this.apis.set(apiId, (info = apiInfo(this.documents(apiId))));
    return info;
  }
}
