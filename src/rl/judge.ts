/**
 * The answer judge of R_ans (paper Appendix C.3): an LLM on an OpenAI-compatible chat endpoint that gives the three
 * verdicts (Quality, Faithfulness, Utility) in one schema-constrained call. A judge that keeps failing throws
 * JudgeError, so the reward is flagged rather than scored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage } from '../simulator/model-responder.js';
import { OpenAIGenerator } from '../simulator/openai.js';
import { BoundedQueue, ResponderBusyError } from '../simulator/queue.js';
import { JudgeError } from './judge-error.js';
import { JUDGE_PROMPT_V1, type JudgePromptResult } from './judge-prompt.v1.js';
import { VERDICTS, verdictOf, type Verdict, type Verdicts } from '../wire/rewards.js';
import type { JudgeOutcome } from '../wire/schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { JudgeOutcome } from '../wire/schema-types.js';

export interface JudgeInput {
  query: string;
  answer: string;
  /** The tool results visible in the trajectory, in order. */
  results: { tool: string; status: number; body: unknown }[];
}

export { JudgeError };

export interface AnswerJudge {
  /** `openai:MODEL@URL`, for messages and logs. */
  readonly name: string;
  judge(input: JudgeInput, signal?: AbortSignal): Promise<JudgeOutcome>;
}

export interface AnswerJudgeOptions {
  /** Sent as `Authorization: Bearer KEY`. */
  apiKey?: string;
  /** Per attempt (waiting for a free slot not counted); default 60,000. */
  timeoutMs?: number;
  /** Attempts after the first; default 2. */
  retries?: number;
  /** Requests in flight at once; more wait their turn. Default 16. */
  concurrency?: number;
  /** Tokens the verdicts may take; default 256. */
  maxTokens?: number;
}

/** What the judge is shown at most, so that one long trajectory cannot overflow its context. */
export const JUDGE_LIMITS = { results: 20, bodyChars: 1_500, answerChars: 8_000, queryChars: 4_000 } as const;

const VERDICT = { type: 'string', enum: VERDICTS };
/** The reply's schema, verdicts first so that they are decided before the reason is written. */
const JUDGE_SCHEMA = {
  type: 'object',
  required: ['quality', 'faithfulness', 'utility', 'reason'],
  additionalProperties: false,
  properties: { quality: VERDICT, faithfulness: VERDICT, utility: VERDICT, reason: { type: 'string' } },
};
const AXES = ['quality', 'faithfulness', 'utility'] as const;
/** Retry-After is honoured up to this; a judge in a reward loop should not stall for minutes. */
const MAX_BACKOFF_MS = 5_000;
const BASE_BACKOFF_MS = 250;

const SPEC = /^openai:(.*?)@(https?:\/\/.+)$/;

/** `openai:MODEL@URL`; an empty MODEL means the server's first model. */
export function parseJudgeSpec(spec: string): { model?: string; url: string } {
  const bad = () =>
    new Error(`expected openai:MODEL@URL (an OpenAI-compatible chat endpoint), got ${JSON.stringify(spec)}`);
  const match = SPEC.exec(spec.trim());
  if (!match) throw bad();
  const [, model = '', url = ''] = match;
  if (!URL.canParse(url)) throw bad();
  return model === '' ? { url } : { model, url };
}

export function createAnswerJudge(spec: string, options: AnswerJudgeOptions = {}): AnswerJudge {
  return new OpenAIAnswerJudge(spec, options);
}

/** The system and user messages for one judgement, the material bounded by JUDGE_LIMITS. */
export function judgeMessages(input: JudgeInput): { role: 'system' | 'user'; content: string }[] {
  const shown = input.results.slice(0, JUDGE_LIMITS.results);
  const results: JudgePromptResult[] = shown.map((r) => ({
    tool: r.tool,
    status: r.status,
    body: cut(compactJson(r.body), JUDGE_LIMITS.bodyChars),
  }));
  const user = JUDGE_PROMPT_V1.user({
    query: cut(input.query, JUDGE_LIMITS.queryChars),
    answer: cut(input.answer, JUDGE_LIMITS.answerChars),
    results,
    omitted: input.results.length - shown.length,
  });
  return [
    { role: 'system', content: JUDGE_PROMPT_V1.system },
    { role: 'user', content: user },
  ];
}

/** The verdicts in a judge's reply; undefined when they cannot be read. */
export function readVerdicts(text: string): Verdicts | undefined {
  return readReply(text)?.verdicts;
}

class OpenAIAnswerJudge implements AnswerJudge {
  readonly name: string;
  private readonly options: AnswerJudgeOptions;
  /** Bounds the judgements in flight, so that the per-attempt timeout starts when the request does. */
  private readonly slots: BoundedQueue;
  private readonly generator: OpenAIGenerator;

  constructor(spec: string, options: AnswerJudgeOptions) {
    const { model, url } = parseJudgeSpec(spec);
    checkOptions(spec, options);
    this.name = `openai:${model ?? ''}@${url}`;
    this.options = options;
    const concurrency = options.concurrency ?? 16;
    this.slots = new BoundedQueue({ name: `judge ${this.name}`, concurrency, maxWaiting: Number.MAX_SAFE_INTEGER });
    // As many slots as the judge's own queue, so that a request never waits inside the generator on its timeout.
    this.generator = new OpenAIGenerator({
      url,
      model,
      apiKey: options.apiKey,
      concurrency,
      modelFlag: 'in the judge spec: openai:MODEL@URL',
    });
  }

  async judge(input: JudgeInput, signal?: AbortSignal): Promise<JudgeOutcome> {
    const messages = judgeMessages(input);
    const attempts = 1 + (this.options.retries ?? 2);
    const failures: string[] = [];
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const { reply, model } = await this.slots.run(() => this.ask(messages, signal), signal);
        return { ...reply, model, prompt_version: JUDGE_PROMPT_V1.version, attempts: attempt };
      } catch (error) {
        // The caller gave up: that is no failure of the judge's, and not worth another request.
        if (signal?.aborted) throw signal.reason;
        lastError = error;
        failures.push(describe(error));
      }
      if (attempt < attempts)
        await sleep(backoffMs(lastError, attempt), undefined, { signal }).catch(() => Promise.reject(signal?.reason));
    }
    const distinct = [...new Set(failures)].join('; ');
    throw new JudgeError(`judge ${this.name}: ${attempts} attempts failed: ${distinct}`, { cause: lastError });
  }

  /** One attempt, bounded by its own timeout as well as the caller's signal. */
  private async ask(
    messages: ChatMessage[],
    signal: AbortSignal | undefined,
  ): Promise<{ reply: Reply; model: string }> {
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      // The spec's model, else the first the server lists (asked once, again after a failure).
      const model = await this.generator.modelName();
      const generation = await this.generator.generate({
        messages,
        schema: JUDGE_SCHEMA,
        maxTokens: this.options.maxTokens ?? 256,
        temperature: 0,
        seed: 0,
        signal: combined,
      });
      const reply = readReply(generation.text);
      if (!reply)
        throw new Error(
          `unreadable verdicts${generation.truncated ? ' (cut at max tokens)' : ''}: ` +
            `${JSON.stringify(generation.text.slice(0, 200))}`,
        );
      return { reply, model };
    } catch (error) {
      if (timeout.aborted && !signal?.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
      throw error;
    }
  }
}

function checkOptions(spec: string, options: AnswerJudgeOptions): void {
  const least = { retries: 0, timeoutMs: 1, concurrency: 1, maxTokens: 1 } as const;
  for (const [key, min] of Object.entries(least) as [keyof typeof least, number][]) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= min))
      throw new Error(`judge ${spec}: ${key} must be an integer of at least ${min}, got ${value}`);
  }
}

/** An error's message with its cause's: fetch says only "fetch failed", its cause says why (ECONNREFUSED…). */
function describe(error: unknown): string {
  const { message, cause } = error instanceof Error ? error : new Error(String(error));
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}

function backoffMs(error: unknown, attempt: number): number {
  const ms =
    error instanceof ResponderBusyError ? error.retryAfterSeconds * 1000 : BASE_BACKOFF_MS * 2 ** (attempt - 1);
  return Math.min(ms, MAX_BACKOFF_MS);
}

interface Reply {
  verdicts: Verdicts;
  reason: string;
}

/**
 * Reads a reply leniently: JSON in a code fence or among prose, verdict words in any case. Should the JSON not parse
 * (cut off in its reason, most likely), verdicts are still read from their `"axis": "WORD"` pairs.
 */
function readReply(text: string): Reply | undefined {
  const unfenced = text.replace(/```(?:json)?/gi, '');
  const start = unfenced.indexOf('{');
  const end = unfenced.lastIndexOf('}');
  const json = start >= 0 && end > start ? safeJson(unfenced.slice(start, end + 1)) : undefined;
  if (json !== null && typeof json === 'object') {
    const record = json as Record<string, unknown>;
    const verdicts = collect((axis) => verdictOf(typeof record[axis] === 'string' ? record[axis].trim() : undefined));
    if (verdicts) return { verdicts, reason: typeof record.reason === 'string' ? record.reason.trim() : '' };
  }
  const verdicts = collect((axis) => verdictOf(new RegExp(`"${axis}"\\s*:\\s*"([a-z]+)"`, 'i').exec(unfenced)?.[1]));
  return verdicts && { verdicts, reason: '' };
}

function collect(read: (axis: (typeof AXES)[number]) => Verdict | undefined): Verdicts | undefined {
  const [quality, faithfulness, utility] = AXES.map(read);
  return quality && faithfulness && utility ? { quality, faithfulness, utility } : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A body as one line of JSON; a body JSON cannot write (undefined) as its text. */
function compactJson(body: unknown): string {
  return JSON.stringify(body) ?? String(body);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + JUDGE_PROMPT_V1.cut(text.length - max);
}
