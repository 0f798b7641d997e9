import { DEFAULT_ERROR_RATE } from './error-rate.js';
import { PROBLEM_CONTENT_TYPE, problem } from './problem.js';
import type { InjectedErrorKind, Responded } from './types.js';

export { DEFAULT_ERROR_RATE };

/** How often each kind is picked once a call is chosen to fail; weights, normalized when drawn. */
export const DEFAULT_ERROR_KINDS: Readonly<Record<InjectedErrorKind, number>> = {
  rate_limit: 0.4,
  network: 0.3,
  timeout: 0.2,
  auth: 0.1,
};

/**
 * How long an injected timeout waits before answering 504, by default: long enough to be felt, short enough for
 * training.
 */
export const DEFAULT_TIMEOUT_DELAY_MS = 200;

export const ERROR_KINDS: readonly InjectedErrorKind[] = ['rate_limit', 'network', 'timeout', 'auth'];

/** A drawn injection: what the call answers instead, and how long it waits first. */
export interface Injection extends Responded {
  kind: InjectedErrorKind;
  headers: Record<string, string>;
  delayMs: number;
}

export interface InjectionConfig {
  errorRate?: number;
  errorKinds?: Partial<Record<InjectedErrorKind, number>>;
  timeoutDelayMs?: number;
}

/**
 * A seeded stream of injection decisions. The rule, exactly: each call that reaches injection (it passed the
 * Rule layer and forces no `code`) reads the next three numbers u1, u2, u3 in [0, 1) of a splitmix32 generator
 * seeded with `seed`; it fails when u1 < errorRate; u2 picks the kind by cumulative weight in the order
 * rate_limit, network, timeout, auth; u3 picks the variant (502 or 503 for network, 1–5 s of Retry-After for a rate
 * limit). Three numbers are read whatever the outcome and whatever the rate, so the same seed and the same call
 * sequence give the same injections, and a per-call rate override does not shift later decisions. The simulator
 * owns one stream; an episode creates its own with its own seed.
 */
export class ErrorStream {
  readonly seed: number;
  readonly errorRate: number;
  readonly timeoutDelayMs: number;
  private readonly kinds: readonly { kind: InjectedErrorKind; upTo: number }[];
  private state: number;
  private drawn = 0;

  constructor(seed: number, config: InjectionConfig = {}) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    this.seed = seed;
    this.errorRate = checkRate(config.errorRate ?? DEFAULT_ERROR_RATE);
    this.timeoutDelayMs = config.timeoutDelayMs ?? DEFAULT_TIMEOUT_DELAY_MS;
    if (!(this.timeoutDelayMs >= 0)) throw new RangeError(`timeoutDelayMs must be >= 0, got ${this.timeoutDelayMs}`);
    this.kinds = cumulativeOf(config.errorKinds ?? DEFAULT_ERROR_KINDS);
    // Mix both halves of the seed so that seeds beyond 2^32 give distinct streams.
    this.state = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) >>> 0, 0x9e3779b9);
  }

  /** Calls that have read from the stream so far. */
  get position(): number {
    return this.drawn;
  }

  /**
   * Decides the next call: an injection, or undefined to let it through. `rate` overrides the stream's rate for this
   * call.
   */
  next(toolId: string, rate = this.errorRate): Injection | undefined {
    const u1 = this.uniform();
    const u2 = this.uniform();
    const u3 = this.uniform();
    this.drawn++;
    if (!(u1 < checkRate(rate))) return undefined;
    const kind = (this.kinds.find((k) => u2 < k.upTo) ?? this.kinds[this.kinds.length - 1]!).kind;
    switch (kind) {
      case 'rate_limit':
        return injectedError(kind, toolId, { retryAfter: 1 + Math.floor(u3 * 5) });
      case 'network':
        return injectedError(kind, toolId, { status: u3 < 0.5 ? 502 : 503 });
      case 'timeout':
        return injectedError(kind, toolId, { delayMs: this.timeoutDelayMs });
      case 'auth':
        return injectedError(kind, toolId);
    }
  }

  /** splitmix32: a 32-bit state advanced by the golden-ratio increment, then finalized. */
  private uniform(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return ((z ^ (z >>> 15)) >>> 0) / 2 ** 32;
  }
}

export interface InjectedErrorOptions {
  /** The status to answer; default the kind's first (429, 502, 504, 401). */
  status?: number;
  /** Seconds of Retry-After on a rate limit; default 1. */
  retryAfter?: number;
  delayMs?: number;
}

/**
 * The response of one error kind: a problem body titled by the HTTP reason phrase, and the headers a real API of that
 * failure sends.
 */
export function injectedError(kind: InjectedErrorKind, toolId: string, options: InjectedErrorOptions = {}): Injection {
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE };
  const delayMs = options.delayMs ?? 0;
  const answer = (status: number, detail: string, extra: Record<string, unknown> = {}): Injection => ({
    kind,
    status,
    headers,
    delayMs,
    body: problem(status, undefined, detail, { tool: toolId, ...extra }),
  });
  switch (kind) {
    case 'rate_limit': {
      const seconds = options.retryAfter ?? 1;
      headers['retry-after'] = String(seconds);
      return answer(options.status ?? 429, `rate limit exceeded for ${toolId}; retry after ${seconds} s`, {
        retry_after: seconds,
      });
    }
    case 'network': {
      const status = options.status ?? 502;
      return answer(
        status,
        status === 502 ? `the upstream of ${toolId} closed the connection` : `${toolId} is temporarily unavailable`,
      );
    }
    case 'timeout':
      return answer(options.status ?? 504, `${toolId} did not answer in time`);
    case 'auth':
      headers['www-authenticate'] = 'ApiKey';
      return answer(options.status ?? 401, `missing API key: ${toolId} requires an API key`);
  }
}

/** The kind an HTTP status is the natural injection of, for `Prefer: code=NNN`. */
export function kindOfStatus(status: number): InjectedErrorKind | undefined {
  switch (status) {
    case 429:
      return 'rate_limit';
    case 502:
    case 503:
      return 'network';
    case 504:
      return 'timeout';
    case 401:
      return 'auth';
    default:
      return undefined;
  }
}

function checkRate(rate: number): number {
  if (!(rate >= 0 && rate <= 1)) throw new RangeError(`errorRate must be between 0 and 1, got ${rate}`);
  return rate;
}

/**
 * The cumulative weights of each weights object, computed once: every episode opens a stream with the server's
 * (a copy each was a quarter KiB of every live episode's heap).
 */
const cumulativeByWeights = new WeakMap<object, readonly { kind: InjectedErrorKind; upTo: number }[]>();

function cumulativeOf(
  weights: Partial<Record<InjectedErrorKind, number>>,
): readonly { kind: InjectedErrorKind; upTo: number }[] {
  let kinds = cumulativeByWeights.get(weights);
  if (!kinds) cumulativeByWeights.set(weights, (kinds = cumulative(weights)));
  return kinds;
}

function cumulative(weights: Partial<Record<InjectedErrorKind, number>>): { kind: InjectedErrorKind; upTo: number }[] {
  for (const [kind, weight] of Object.entries(weights)) {
    if (!ERROR_KINDS.includes(kind as InjectedErrorKind))
      throw new RangeError(`unknown error kind ${JSON.stringify(kind)} (kinds: ${ERROR_KINDS.join(', ')})`);
    if (!(typeof weight === 'number' && weight >= 0 && Number.isFinite(weight)))
      throw new RangeError(`weight of ${kind} must be a finite number >= 0`);
  }
  const total = ERROR_KINDS.reduce((sum, kind) => sum + (weights[kind] ?? 0), 0);
  if (!(total > 0)) throw new RangeError('errorKinds must give at least one kind a positive weight');
  let upTo = 0;
  return ERROR_KINDS.filter((kind) => (weights[kind] ?? 0) > 0).map((kind) => ({
    kind,
    upTo: (upTo += weights[kind]! / total),
  }));
}
