import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tool } from '../library/tool.js';
import type { Produced, PutOutcome, CacheBackend, StoredHit } from './cache-types.js';
import { canonicalJson } from './canonical.js';
import { exampleNamed } from './examples.js';
import { ErrorStream, injectedError, kindOfStatus, type InjectionConfig } from './inject.js';
import { SimulatorMetrics } from './metrics.js';
import { PROBLEM_CONTENT_TYPE, problem, type Problem } from './problem.js';
import type {
  Arguments,
  CallControls,
  CallOptions,
  CallResult,
  InjectedErrorKind,
  Responded,
  Responder,
  ResponseSource,
  Simulator,
} from './types.js';
import { Rules, type RuleAccepted, type ToolSource } from './validate.js';
import { COERCED_HEADER, coercedHeader, type CoercionMode } from './lax.js';
import { IGNORED_HEADER, type UnknownArgumentsMode } from './unknown-arguments.js';
import { ResponderBusyError } from './queue.js';
import { storedResult, untouchedBodyText, withStoredBody } from './stored-result.js';
import type { CallerCredentials } from './upstream/credentials.js';
import { REAL_SOURCE } from './upstream/mode.js';
import type { Upstream } from './upstream/upstream.js';

export interface SimulatorOptions {
  /** The library (a `LibraryStore`, or anything with `get` and `ids`). */
  store: ToolSource;
  /** The response cache; absent means cache mode `off`. A read-only cache is read but never written. */
  cache?: CacheBackend;
  /** The Response layer, asked in order until one answers (default order: model, examples, synthesizer). */
  responders: readonly Responder[];
  /** Handed to responders (synthesized bodies depend on it) and seeds the injection stream; default 0. */
  seed?: number;
  /** Seeds the simulator's own injection stream instead of `seed` (each worker of a cluster draws its own). */
  injectionSeed?: number;
  /** Probability that a valid call answers an injected error instead; default 0.05, 0 turns injection off. */
  errorRate?: number;
  errorKinds?: Partial<Record<InjectedErrorKind, number>>;
  timeoutDelayMs?: number;
  /** Counters to record into (the server passes its own to render at /metrics); default a fresh one. */
  metrics?: SimulatorMetrics;
  /** Compiled argument validators kept at once; default 2048. */
  maxValidators?: number;
  /**
   * Undeclared top-level arguments: `reject` (default, a 400 naming them) or `ignore` (dropped, said in
   * x-toolenv-ignored).
   */
  unknownArguments?: UnknownArgumentsMode;
  /**
   * Wrongly typed values: `strict` (default, a 400) or `lax` (numeric and boolean strings, one-element arrays coerced,
   * said in x-toolenv-coerced).
   */
  coercion?: CoercionMode;
  /**
   * The real APIs (`serve --upstream`): valid calls are forwarded (record, passthrough) or answered from recordings
   * (replay).
   */
  upstream?: Upstream;
}

export interface PipelineCallOptions extends CallOptions {
  /** The injection stream this call reads (an episode's own); default the simulator's. */
  errors?: ErrorStream;
}

/** The Simulator the server, the CLI and episodes hold: `call` plus what they inspect or share. */
export interface ToolSimulator extends Simulator {
  readonly seed: number;
  readonly metrics: SimulatorMetrics;
  /** The simulator's own injection stream. */
  readonly errors: ErrorStream;
  readonly rules: Rules;
  readonly cache: CacheBackend | undefined;
  call(toolId: string, args: unknown, options?: PipelineCallOptions): Promise<CallResult>;
  /** A new injection stream with this simulator's rate, kinds and timeout delay and its own seed (one per episode). */
  errorStream(seed: number): ErrorStream;
}

/**
 * Rule → injection → cache → responders → write-back (paper §3.4).
 *
 * 1. Rules: the tool exists (404 with the nearest ids otherwise), the arguments are a JSON object that satisfies
 *    its parameter schema (400 with `errors: [{path, message}]`), the controls are well-formed (400).
 * 2. `Prefer: code=NNN`: an example of that status, else a kind-shaped error (429, 502/503, 504, 401), else the
 *    normal path when NNN is the tool's success status, else a problem of that status (NNN ≥ 400) or 400.
 * 3. Injection: the call's three numbers are read from the error stream, synchronously, before anything awaits —
 *    so concurrent calls draw in the order `call` was invoked.
 * 4. `Prefer: example=NAME` answers that spec example.
 * 5. The cache (skipped with `Prefer: dynamic=true`): a hit answers with source `cache`.
 * 6. The responders in order (`dynamic` skips the examples responder); the first answer is written back unless
 *    `dynamic`. Concurrent identical misses share one responder call; with a cache that several processes share
 *    (PostgreSQL), identical misses across them too (`settle`: one answers, the others serve its stored row). A
 *    responder that throws is counted and the next one asked.
 * Rule answers, injected errors, forced codes, named examples and dynamic answers are never cached, nor entries over
 * the cache's size limit.
 *
 * With an upstream (`serve --upstream`), steps 5 and 6 give way to the real API after step 4: `record` and
 * `passthrough` forward the call (no injection: a recording is of the API, not of ToolEnv's noise) and answer with
 * source `real`, `record` storing the answer as source `real` in place of any other; `replay` answers only a stored
 * answer of source `real` (injection on, as in training), and a 501 problem without one.
 *
 * Spec examples enter the cache on a call's first miss: the examples responder's answer is written back like any
 * other (source `example`). Nothing is seeded up front — that would parse all 50,011 records at startup, and an
 * example carries no arguments to key it by; only calls someone made are cached.
 */
export function createSimulator(options: SimulatorOptions): ToolSimulator {
  return new PipelineSimulator(options);
}

type Answer = Responded & { source: ResponseSource };

class PipelineSimulator implements ToolSimulator {
  readonly seed: number;
  readonly metrics: SimulatorMetrics;
  readonly errors: ErrorStream;
  readonly rules: Rules;
  readonly cache: CacheBackend | undefined;
  private readonly responders: readonly Responder[];
  private readonly injection: InjectionConfig;
  private readonly inflight = new Map<string, Promise<Shared>>();
  private readonly upstream: Upstream | undefined;

  constructor(options: SimulatorOptions) {
    this.seed = options.seed ?? 0;
    this.metrics = options.metrics ?? new SimulatorMetrics();
    this.injection = {
      errorRate: options.errorRate,
      errorKinds: options.errorKinds,
      timeoutDelayMs: options.timeoutDelayMs,
    };
    this.errors = new ErrorStream(options.injectionSeed ?? this.seed, this.injection);
    this.rules = new Rules(options.store, {
      maxValidators: options.maxValidators,
      unknownArguments: options.unknownArguments,
      coercion: options.coercion,
      onCompileFailure: () => this.metrics.schemaCompileFailures++,
    });
    this.cache = options.cache;
    this.responders = options.responders;
    this.upstream = options.upstream;
  }

  errorStream(seed: number): ErrorStream {
    return new ErrorStream(seed, this.injection);
  }

  get forwards(): boolean {
    return this.upstream?.forwards === true;
  }

  async call(toolId: string, args: unknown, options: PipelineCallOptions = {}): Promise<CallResult> {
    const started = performance.now();
    const result = await this.answer(toolId, args, options);
    this.metrics.recordCall(result.source, result.status, (performance.now() - started) / 1000);
    return result;
  }

  private async answer(toolId: string, args: unknown, options: PipelineCallOptions): Promise<CallResult> {
    const checked = this.rules.check(toolId, args);
    if (!checked.ok) return problemResult(checked.problem);
    const result = await this.accepted(checked, options);
    return checked.coerced || checked.ignored ? withRuleNotes(result, checked) : result;
  }

  /**
   * A call the rules let through, with the arguments they hand on (coerced, or without ignored names: the cache key
   * too).
   */
  private async accepted({ tool, args: given }: RuleAccepted, options: PipelineCallOptions): Promise<CallResult> {
    const controls = options.controls ?? {};
    const badControl = checkControls(controls);
    if (badControl) return problemResult(badControl);

    if (controls.code !== undefined && controls.code !== successStatus(tool)) return forcedCode(tool, controls);

    if (controls.code === undefined && !this.upstream?.forwards) {
      const injection = (options.errors ?? this.errors).next(tool.id, options.errorRate);
      if (injection) {
        this.metrics.injected[injection.kind]++;
        if (injection.delayMs > 0) await sleep(injection.delayMs);
        return {
          status: injection.status,
          body: injection.body,
          source: 'rule',
          headers: injection.headers,
          error: injection.kind,
        };
      }
    }

    if (controls.example !== undefined) return namedExample(tool, controls.example);
    if (this.upstream)
      return this.upstream.forwards
        ? this.forwarded(this.upstream, tool, given, options.credentials)
        : this.replayed(tool, given);

    if (!controls.dynamic && this.cache) {
      const found = this.lookup(tool.id, given);
      // A SQLite lookup and a memoized row answer at once: only a database round trip is awaited.
      const hit = found instanceof Promise ? await found : found;
      if (hit) {
        this.metrics.cacheHits++;
        return hitResult(hit);
      }
      this.metrics.cacheMisses++;
    }

    if (controls.dynamic) return withHeaders(await this.respond(tool, given, true));
    const settled = await this.shared(tool, given);
    return 'hit' in settled
      ? hitResult(settled.hit)
      : withHeaders(settled.first ? settled.answer : { ...settled.answer, body: structuredClone(settled.answer.body) });
  }

  /** The cache's entry for a call; a failed database read is counted and is a miss. */
  private lookup(toolId: string, args: Arguments): StoredHit | undefined | Promise<StoredHit | undefined> {
    const found = this.cache?.getText(toolId, args);
    return found instanceof Promise ? found.catch(() => void this.metrics.cacheReadErrors++) : found;
  }

  /** A recorded answer of the real API, or a 501 problem saying how to record one; never a simulated answer. */
  private async replayed(tool: Tool, args: Arguments): Promise<CallResult> {
    const hit = await this.lookup(tool.id, args);
    if (hit?.source === REAL_SOURCE) {
      this.metrics.cacheHits++;
      const result = hitResult(hit);
      result.source = 'real';
      return result;
    }
    this.metrics.replayMisses++;
    return problemResult(
      problem(
        501,
        'No recording',
        `${tool.id} has no recorded real answer for these arguments; record one with \`serve --upstream ` +
          'record` (or `toolenv call --upstream record`), or import a corpus with `toolenv cache import ' +
          '--format toolbench`',
        { tool: tool.id },
      ),
    );
  }

  /**
   * The call sent to the real API: its answer recorded (record mode), compared with the simulator's in the diff log.
   */
  private async forwarded(
    upstream: Upstream,
    tool: Tool,
    args: Arguments,
    credentials: CallerCredentials | undefined,
  ): Promise<CallResult> {
    // A simulator that cannot answer (a full model queue) costs the log line, never the real answer.
    const [forwarded, simulated] = await Promise.all([
      upstream.forward(tool, args, credentials),
      upstream.logs ? this.simulated(tool, args).catch(() => undefined) : undefined,
    ]);
    if (!forwarded.ok) {
      this.metrics.upstreamFailures++;
      return problemResult(forwarded.problem);
    }
    const { answer } = forwarded;
    const recorded =
      upstream.records(answer.status) && this.cache?.writable === true && (await this.record(tool, args, answer));
    if (simulated) upstream.logDiff(tool, args, forwarded.request, answer, simulated, recorded);
    return { status: answer.status, body: answer.body, source: 'real', headers: answer.headers };
  }

  /** Stores a real answer in place of whatever the cache held for the call; a failed write costs the recording only. */
  private async record(tool: Tool, args: Arguments, answer: Responded): Promise<boolean> {
    try {
      // An empty body (a 204) is stored as null, which a replay answers as no body again.
      await this.cache!.import(
        [{ tool: tool.id, arguments: args, status: answer.status, body: answer.body ?? null, source: REAL_SOURCE }],
        { replace: true },
      );
      this.metrics.cacheWrites++;
      this.metrics.upstreamRecorded++;
      return true;
    } catch {
      this.metrics.cacheWriteErrors++;
      return false;
    }
  }

  /** What the simulator would have answered: its stored simulated answer, else the responders' (not written back). */
  private async simulated(tool: Tool, args: Arguments): Promise<Answer> {
    const hit = await this.lookup(tool.id, args);
    if (hit && hit.source !== REAL_SOURCE) return { status: hit.status, body: JSON.parse(hit.text), source: 'cache' };
    return this.respond(tool, args, false);
  }

  /**
   * One responder call per distinct (tool, arguments) in flight — a GRPO group's rollouts make the same call at
   * once — written back once. Callers that join get their own copy of the body.
   */
  private async shared(tool: Tool, args: Arguments): Promise<Shared & { first: boolean }> {
    const key = `${tool.id}\u0000${canonicalJson(args)}`;
    const pending = this.inflight.get(key);
    if (pending) return { ...(await pending), first: false };
    const first = this.produce(tool, args).finally(() => this.inflight.delete(key));
    this.inflight.set(key, first);
    return { ...(await first), first: true };
  }

  /** A miss answered and written back; a cache shared by several processes settles it so that one of them answers. */
  private async produce(tool: Tool, args: Arguments): Promise<Shared> {
    const cache = this.cache?.writable ? this.cache : undefined;
    if (!cache?.settle) {
      const answer = await this.respond(tool, args, false);
      if (cache && answer.source !== 'rule') {
        // Answered once stored, so that an acknowledged answer is in the cache even if the process dies next.
        if (cache.putBatched) await this.countPut(() => cache.putBatched!(tool.id, args, answer));
        else this.countPut(() => cache.put(tool.id, args, answer));
      }
      return { answer };
    }
    let answer: Answer | undefined;
    const respond = async (): Promise<Produced> => {
      answer = await this.respond(tool, args, false);
      return { response: answer, cacheable: answer.source !== 'rule' };
    };
    let settled;
    try {
      settled = await cache.settle(tool.id, args, respond);
    } catch (error) {
      if (answer !== undefined || error instanceof ResponderBusyError) throw error;
      // The database failed before anything was asked: the call is still answered, uncached.
      this.metrics.cacheWriteErrors++;
      return { answer: await this.respond(tool, args, false) };
    }
    if (settled.kind === 'stored') {
      this.metrics.cacheShared++;
      return { hit: settled.hit };
    }
    this.countOutcome(settled.outcome);
    return { answer: answer! };
  }

  private async respond(tool: Tool, args: Arguments, dynamic: boolean): Promise<Answer> {
    let failure: Error | undefined;
    for (const responder of this.responders) {
      if (dynamic && responder.name === 'example') continue;
      let answer: Responded | undefined;
      try {
        answer = await responder.respond(tool, args, { seed: this.seed });
      } catch (error) {
        // A full model queue is the simulator's own overload, not a wrong answer: the caller gets 503 + Retry-After.
        if (error instanceof ResponderBusyError) throw error;
        this.metrics.responderErrors++;
        failure = error instanceof Error ? error : new Error(String(error));
        continue;
      }
      if (!answer) continue;
      // A body that arrived as JSON text (the synthesis thread's) stays text: a spread would parse it.
      const text = untouchedBodyText(answer);
      return text === undefined
        ? { ...answer, source: responder.name }
        : withStoredBody({ status: answer.status, source: responder.name }, text);
    }
    const body = failure
      ? problem(500, 'Responder failed', `no responder answered ${tool.id}: ${failure.message}`, { tool: tool.id })
      : problem(
          501,
          'No simulated response',
          `none of the responders (${this.responders.map((r) => r.name).join(', ') || 'none configured'}) ` +
            `answers ${tool.id}`,
          { tool: tool.id },
        );
    return { status: body.status, body, source: 'rule' };
  }

  /**
   * A write-back counted; it never fails the call (a lock held by another process past busy_timeout costs only this
   * entry).
   */
  private countPut(put: () => PutOutcome | Promise<PutOutcome>): Promise<void> | undefined {
    let outcome: PutOutcome | Promise<PutOutcome>;
    try {
      outcome = put();
    } catch {
      this.metrics.cacheWriteErrors++;
      return undefined;
    }
    if (outcome instanceof Promise)
      return outcome.then(
        (settled) => this.countOutcome(settled),
        () => this.countOutcome('error'),
      );
    this.countOutcome(outcome);
    return undefined;
  }

  private countOutcome(outcome: PutOutcome | 'error' | undefined): void {
    if (outcome === 'stored') this.metrics.cacheWrites++;
    else if (outcome === 'too_large') this.metrics.cacheTooLarge++;
    else if (outcome === 'full') this.metrics.cacheFull++;
    else if (outcome === 'error') this.metrics.cacheWriteErrors++;
  }
}

/** A miss settled: answered here, or by another process sharing the cache (its stored row). */
type Shared = { answer: Answer } | { hit: StoredHit };

function hitResult(hit: StoredHit): CallResult {
  return storedResult(
    hit.status,
    hit.text,
    hit.status >= 400 && isProblemText(hit.text) ? { 'content-type': PROBLEM_CONTENT_TYPE } : {},
  );
}

/** What the rules changed, on the answer: headers for any client, fields for the episode's record. */
function withRuleNotes(result: CallResult, checked: RuleAccepted): CallResult {
  // The result's headers object may be shared (an injected error's): a copy carries the notes.
  const headers = { ...result.headers };
  if (checked.coerced) {
    headers[COERCED_HEADER] = coercedHeader(checked.coerced);
    result.coerced = checked.coerced;
  }
  if (checked.ignored) {
    headers[IGNORED_HEADER] = checked.ignored.map(encodeURIComponent).join(', ');
    result.ignored = checked.ignored;
  }
  result.headers = headers;
  return result;
}

function successStatus(tool: Tool): number {
  return tool.response_status ?? 200;
}

function problemResult(body: Problem): CallResult {
  return { status: body.status, body, source: 'rule', headers: { 'content-type': PROBLEM_CONTENT_TYPE } };
}

/**
 * An answer as a CallResult: error answers shaped as problems (a responder's, or a cached one) say so in their content
 * type.
 */
function withHeaders(answer: Answer): CallResult {
  const headers: Record<string, string> =
    answer.status >= 400 && isProblem(answer.body) ? { 'content-type': PROBLEM_CONTENT_TYPE } : {};
  const text = untouchedBodyText(answer);
  if (text !== undefined)
    return withStoredBody({ status: answer.status, source: answer.source, headers }, text) as CallResult;
  return { status: answer.status, body: answer.body, source: answer.source, headers };
}

function isProblem(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'type' in body && 'title' in body && 'status' in body;
}

/** isProblem for a stored error body, parsed only for this check (error answers are rare among cache hits). */
function isProblemText(text: string): boolean {
  return isProblem(JSON.parse(text));
}

function checkControls(controls: CallControls): Problem | undefined {
  const wrong: string[] = [];
  if (
    controls.code !== undefined &&
    !(Number.isInteger(controls.code) && controls.code >= 100 && controls.code <= 599)
  ) {
    wrong.push(`code must be an HTTP status from 100 to 599, got ${JSON.stringify(controls.code)}`);
  }
  if (controls.example !== undefined && (typeof controls.example !== 'string' || controls.example === '')) {
    wrong.push(`example must be a non-empty example name, got ${JSON.stringify(controls.example)}`);
  }
  if (controls.dynamic !== undefined && typeof controls.dynamic !== 'boolean') {
    wrong.push(`dynamic must be true or false, got ${JSON.stringify(controls.dynamic)}`);
  }
  return wrong.length > 0 ? problem(400, 'Invalid Prefer', wrong.join('; ')) : undefined;
}

function forcedCode(tool: Tool, controls: CallControls): CallResult {
  const code = controls.code!;
  const example = tool.examples.find(
    (e) => e.status === code && (controls.example === undefined || e.name === controls.example),
  );
  if (example) return { status: example.status, body: structuredClone(example.body), source: 'example', headers: {} };
  const kind = kindOfStatus(code);
  if (kind) {
    const error = injectedError(kind, tool.id, { status: code });
    return { status: error.status, body: error.body, source: 'rule', headers: error.headers, error: kind };
  }
  if (code >= 400) return problemResult(problem(code, undefined, `forced by Prefer: code=${code}`, { tool: tool.id }));
  return problemResult(
    problem(
      400,
      'Invalid Prefer',
      `${tool.id} documents no ${code} response: its success status is ${successStatus(tool)}`,
      { tool: tool.id },
    ),
  );
}

function namedExample(tool: Tool, name: string): CallResult {
  const example = exampleNamed(tool, name);
  // A copy: the tool record is shared (the library keeps parsed records in an LRU).
  if (example) return { status: example.status, body: structuredClone(example.body), source: 'example', headers: {} };
  const names = tool.examples.flatMap((e) => (e.name === undefined ? [] : [e.name]));
  const known =
    names.length > 0
      ? `; its examples: ${names.map((n) => JSON.stringify(n)).join(', ')}`
      : '; it has no named examples';
  // 404 as Prism answers an example key it lacks: the request is well formed and names what the tool does not have.
  return problemResult(
    problem(404, 'Unknown example', `${tool.id} has no example named ${JSON.stringify(name)}${known}`, {
      tool: tool.id,
      examples: names,
    }),
  );
}
