import type { ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import type { JsonSchema, Tool } from '../library/tool.js';
import { createAjv } from '../library/ajv.js';
import type { FewShotSource } from './prompt/few-shot.js';
import { renderToolPrompt } from './prompt/render.js';
import { ResponderBusyError, type BoundedQueue } from './queue.js';
import { callSeed } from './synth/random.js';
import type { Arguments, RespondContext, Responded, Responder } from './types.js';

/** One chat turn, as both the local engine and OpenAI-compatible servers take it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerationRequest {
  messages: ChatMessage[];
  /**
   * The tool's real response schema; the generator constrains its output by it as far as it can. Undefined: any JSON.
   */
  schema: JsonSchema | undefined;
  /** Unconstrained text instead of JSON (the chat route's `response_format: text`); `schema` is then ignored. */
  text?: boolean;
  maxTokens: number;
  temperature: number;
  seed: number;
  signal: AbortSignal;
}

export interface Generation {
  text: string;
  promptTokens: number;
  completionTokens: number;
  /** The generation stopped at maxTokens (its JSON is then cut off). */
  truncated: boolean;
}

/** What the model responders run on: the local llama.cpp engine or a remote OpenAI-compatible server. */
export interface TextGenerator {
  /** Says which model, in messages. */
  readonly label: string;
  /** Throws ResponderBusyError when its queue is full. */
  generate(request: GenerationRequest): Promise<Generation>;
  /**
   * Resolves once `countTokens` works (the local engine loads its model on the first call); rejects if it never will.
   */
  ready(): Promise<void>;
  /** Tokens of `text` for the prompt budget: exact where the tokenizer is at hand, else an estimate. */
  countTokens(text: string): number;
  /** The generator's bounded queue (local engine, remote endpoint), reported on /metrics. */
  readonly queue?: Pick<BoundedQueue, 'running' | 'waiting' | 'concurrency' | 'maxWaiting'>;
}

export interface ModelResponderOptions {
  generator: TextGenerator;
  /** Cached answers of the same tool, shown as few-shot examples. */
  fewShot?: FewShotSource;
  /** Most few-shot examples per prompt (cached answers first, then the tool's spec examples); default 3. */
  maxExamples?: number;
  /** Token budget of the prompt (few-shot examples are dropped to stay under it); default 2048. */
  promptTokens?: number;
  /** Most tokens one answer may take; default 1024. */
  maxTokens?: number;
  /** Sampling temperature; default 0.7. */
  temperature?: number;
  /** Per-call deadline, queueing included; default 60 000 ms. */
  timeoutMs?: number;
}

/** What the model responder did, for /metrics and benchmarks. */
export interface ModelResponderStats {
  calls: number;
  /** Calls answered with a schema-valid body. */
  answered: number;
  /** Calls that fell back (returned undefined) after an invalid body, an error or a timeout. */
  fallbacks: number;
  /** Generations whose body was not JSON or failed the response schema. */
  invalid: number;
  /** Second attempts after an invalid body. */
  retries: number;
  timeouts: number;
  /** Generator failures: model load errors, HTTP errors, engine errors. */
  errors: number;
  /** Calls refused because the queue was full (answered 503 by the pipeline). */
  busy: number;
  promptTokens: number;
  completionTokens: number;
  generationSeconds: number;
  /** The last generator error, for `serve` logs and health checks. */
  lastError?: string;
}

export interface ModelResponder extends Responder {
  readonly name: 'model';
  readonly generator: TextGenerator;
  /** Few-shot examples; settable because the server opens its cache after the responders are made. */
  fewShot: FewShotSource | undefined;
  readonly stats: ModelResponderStats;
  /** The stats as Prometheus text, metric names prefixed `toolenv_model_`. */
  toPrometheus(): string;
}

/**
 * The Response layer's model: renders the prompt, generates under the tool's response schema, and answers only
 * with a body that parses and satisfies the real schema. An invalid body is retried once with another seed; a
 * second failure, a generator error or the deadline resolves to undefined, so the pipeline asks the next responder
 * (the synthesizer) and nothing invalid is ever cached. A full queue throws ResponderBusyError.
 */
export function createModelResponder(options: ModelResponderOptions): ModelResponder {
  const generator = options.generator;
  const maxExamples = options.maxExamples ?? 3;
  const budget = options.promptTokens ?? 2048;
  const maxTokens = options.maxTokens ?? 1024;
  const temperature = options.temperature ?? 0.7;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const validators = new ResponseValidators();
  const stats: ModelResponderStats = {
    calls: 0,
    answered: 0,
    fallbacks: 0,
    invalid: 0,
    retries: 0,
    timeouts: 0,
    errors: 0,
    busy: 0,
    promptTokens: 0,
    completionTokens: 0,
    generationSeconds: 0,
  };

  async function respond(tool: Tool, args: Arguments, ctx: RespondContext): Promise<Responded | undefined> {
    const status = tool.response_status ?? 200;
    // A 204 has no body to simulate.
    if (status === 204) return undefined;
    stats.calls++;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = ctx.signal ? AbortSignal.any([deadline, ctx.signal]) : deadline;
    try {
      const examples = [
        ...((await responder.fewShot?.examples(tool.id, maxExamples)) ?? []),
        ...tool.examples.filter((e) => e.status < 400).map((e) => ({ status: e.status, body: e.body })),
      ].slice(0, maxExamples);
      // The first call waits for the model to load, but no longer than its deadline.
      await untilAborted(generator.ready(), signal);
      const prompt = renderToolPrompt(tool, args, {
        examples,
        budgetTokens: budget,
        countTokens: (text) => generator.countTokens(text),
      });
      const messages: ChatMessage[] = [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ];
      const validate = validators.get(tool.response_schema);
      const seed = callSeed(tool.id, args, ctx.seed);
      for (let attempt = 0; attempt < 2; attempt++) {
        if (attempt > 0) stats.retries++;
        const started = performance.now();
        const generation = await generator.generate({
          messages,
          schema: tool.response_schema,
          maxTokens,
          temperature,
          seed: (seed + attempt) >>> 0,
          signal,
        });
        stats.generationSeconds += (performance.now() - started) / 1000;
        stats.promptTokens += generation.promptTokens;
        stats.completionTokens += generation.completionTokens;
        const body = parseBody(generation.text);
        if (body.ok && (!validate || validate(body.value))) {
          stats.answered++;
          return { status, body: body.value };
        }
        stats.invalid++;
      }
    } catch (error) {
      if (error instanceof ResponderBusyError) {
        stats.busy++;
        throw error;
      }
      if (deadline.aborted) stats.timeouts++;
      else if (!ctx.signal?.aborted) {
        stats.errors++;
        stats.lastError = error instanceof Error ? error.message : String(error);
      }
    }
    stats.fallbacks++;
    return undefined;
  }

  const responder: ModelResponder = {
    name: 'model',
    generator,
    fewShot: options.fewShot,
    stats,
    respond,
    toPrometheus: () => modelPrometheus(stats, generator.queue),
  };
  return responder;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  // A number past the double range (the grammar allows 16-digit exponents) parses as Infinity, which ajv takes for an
  // integer and JSON cannot carry: such a body is invalid, not served as null.
  let finite = true;
  try {
    const value: unknown = JSON.parse(text, (_key, item: unknown) => {
      if (typeof item === 'number' && !Number.isFinite(item)) finite = false;
      return item;
    });
    return finite ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/**
 * Compiled response-schema validators, keyed by the schema's JSON (tool records are fresh objects on every read).
 * A schema ajv cannot compile cannot be checked: its answers need only be JSON, as the Rule layer checks such tools'
 * arguments for required parameters only.
 */
class ResponseValidators {
  private readonly ajv = createAjv();
  private readonly compiled: LRUCache<string, { schema: JsonSchema; validate: ValidateFunction | null }>;

  constructor(max = 1024) {
    // ajv keeps every compiled schema in its own cache: evicting ours must evict ajv's too.
    this.compiled = new LRUCache({
      max,
      dispose: (entry) => {
        if (typeof entry.schema === 'object') this.ajv.removeSchema(entry.schema);
      },
    });
  }

  get(schema: JsonSchema | undefined): ValidateFunction | undefined {
    if (schema === undefined) return undefined;
    const key = JSON.stringify(schema);
    let entry = this.compiled.get(key);
    if (!entry) {
      let validate: ValidateFunction | null = null;
      try {
        validate = this.ajv.compile(schema);
      } catch {
        validate = null;
      }
      entry = { schema, validate };
      this.compiled.set(key, entry);
    }
    return entry.validate ?? undefined;
  }
}

function modelPrometheus(stats: ModelResponderStats, queue: TextGenerator['queue']): string {
  const rows: [string, string, string, number][] = [
    ['toolenv_model_calls_total', 'counter', 'Calls the model responder was asked.', stats.calls],
    ['toolenv_model_answered_total', 'counter', 'Calls the model answered with a schema-valid body.', stats.answered],
    [
      'toolenv_model_fallbacks_total',
      'counter',
      'Calls the model left to the next responder (invalid body twice, error or timeout).',
      stats.fallbacks,
    ],
    [
      'toolenv_model_invalid_total',
      'counter',
      'Generations that were not JSON or failed the response schema.',
      stats.invalid,
    ],
    ['toolenv_model_retries_total', 'counter', 'Second generations after an invalid body.', stats.retries],
    ['toolenv_model_timeouts_total', 'counter', 'Calls past the model deadline.', stats.timeouts],
    ['toolenv_model_errors_total', 'counter', 'Model failures (load, engine or HTTP errors).', stats.errors],
    ['toolenv_model_busy_total', 'counter', 'Calls refused because the model queue was full.', stats.busy],
    ['toolenv_model_prompt_tokens_total', 'counter', 'Prompt tokens sent to the model.', stats.promptTokens],
    ['toolenv_model_completion_tokens_total', 'counter', 'Tokens the model generated.', stats.completionTokens],
    [
      'toolenv_model_generation_seconds_total',
      'counter',
      'Seconds spent generating, queueing included.',
      stats.generationSeconds,
    ],
  ];
  if (queue) {
    rows.push(
      ['toolenv_model_queue_running', 'gauge', 'Generations running now.', queue.running],
      ['toolenv_model_queue_waiting', 'gauge', 'Calls waiting for a generation slot.', queue.waiting],
      ['toolenv_model_queue_concurrency', 'gauge', 'Generations that run at once.', queue.concurrency],
      [
        'toolenv_model_queue_max_waiting',
        'gauge',
        'Calls that may wait before new ones are refused (busy).',
        queue.maxWaiting,
      ],
    );
  }
  return rows
    .map(([name, type, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`)
    .join('');
}
