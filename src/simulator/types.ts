import type { Tool } from '../library/tool.js';
import type { CallerCredentials } from './upstream/credentials.js';
import type { Coercion } from './lax.js';

/**
 * Where a response came from; travels as the `x-toolenv-source` header. `rule` marks a Rule-layer answer (4xx,
 * injected error); `state` an answer an episode's world state gave or changed (src/episodes/world.ts); `real` the
 * real API's answer (`serve --upstream`: forwarded, or a recording replayed).
 */
export type ResponseSource = 'cache' | 'example' | 'model' | 'synth' | 'rule' | 'state' | 'real';

/** Injected error kinds; travel as the `x-toolenv-error` header. */
export type InjectedErrorKind = 'rate_limit' | 'network' | 'timeout' | 'auth';

export type Arguments = Record<string, unknown>;

/** Per-request controls in Prism's style (`Prefer: code=429, example=NAME, dynamic=true`). */
export interface CallControls {
  code?: number;
  example?: string;
  dynamic?: boolean;
}

export interface CallResult {
  status: number;
  body: unknown;
  source: ResponseSource;
  /** Extra response headers the simulated API sends (Retry-After, content-type of a problem…). */
  headers: Record<string, string>;
  error?: InjectedErrorKind;
  /** Values the lax Rule layer coerced (`serve --coercion lax`). */
  coerced?: Coercion[];
  /** Undeclared arguments the Rule layer dropped (`serve --unknown-arguments ignore`). */
  ignored?: string[];
}

export interface RespondContext {
  /** The server's seed; responders derive their randomness from it, the tool and the arguments only. */
  seed: number;
  signal?: AbortSignal;
}

export interface Responded {
  status: number;
  body: unknown;
}

/** The Response layer: spec examples, the synthesizer, and (later) the LLM models implement it. */
export interface Responder {
  readonly name: Exclude<ResponseSource, 'cache' | 'rule' | 'state' | 'real'>;
  /** Resolves to undefined when this responder has nothing to say for the call (the next one is tried). */
  respond(tool: Tool, args: Arguments, ctx: RespondContext): Promise<Responded | undefined>;
}

export interface CallOptions {
  controls?: CallControls;
  /** Overrides the server's error rate for this call (0 turns injection off). */
  errorRate?: number;
  /**
   * The caller's own credentials for the real API, forwarded with the call under `serve --upstream record|passthrough`.
   */
  credentials?: CallerCredentials;
}

/** The pipeline Rule → Cache → Response → write-back, as the server, the CLI and episodes see it. */
export interface Simulator {
  call(toolId: string, args: unknown, options?: CallOptions): Promise<CallResult>;
  /**
   * Whether calls go to a real API with the caller's credentials (`serve --upstream record|passthrough`); only then are
   * they read.
   */
  readonly forwards?: boolean;
}
