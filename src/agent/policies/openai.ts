import { setTimeout as sleep } from 'node:timers/promises';
import { fetchFailure } from '../fetch-failure.js';
import { approximateUsage } from '../tokens.js';
import type { ChatMessage, Policy, PolicyContext, TokenUsage } from '../types.js';
import { sampleSeed } from './sample-seed.js';
import { STOP_SEQUENCES } from '../../protocol/prompts.js';
import type { ChatToolCall } from '../../wire/episodes.js';

/** `openai:MODEL@URL`: any OpenAI-compatible chat completions endpoint (vLLM, SGLang, llama-server, a provider). */

export interface OpenAIPolicyOptions {
  model: string;
  /** The server's root (`http://host:8000`), its `/v1`, or the full `/v1/chat/completions` URL. */
  url: string;
  /** Sent as `Authorization: Bearer KEY`. */
  apiKey?: string;
  /** Per request; default 120 s. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx, a timeout or a network failure; default 3. */
  retries?: number;
  /** First backoff; doubles per retry, and a Retry-After header (capped at 30 s) takes precedence. Default 1 s. */
  retryDelayMs?: number;
  /** Default 2048 (the paper's per-call budget). */
  maxTokens?: number;
  /** Default: the server's. */
  temperature?: number;
  /**
   * Mixed with each run's seed and the turn (sampleSeed) into the request's `seed`, sent whenever either is known;
   * a server that refuses the member (400 naming `seed`) is asked again without it, and not sent one again.
   */
  seed?: number;
}

const MAX_RETRY_AFTER_MS = 30_000;

export class PolicyRequestError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PolicyRequestError';
  }
}

export function openaiPolicy(options: OpenAIPolicyOptions): Policy {
  const endpoint = chatEndpoint(options.url);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let acceptsSeed = true;
  return {
    name: `openai:${options.model}@${options.url}`,
    nativeTools: true,
    async next(messages: readonly ChatMessage[], context: PolicyContext) {
      // The chat agent: the functions go as `tools` and the model's template ends its message; the text agents' stops
      // are tags.
      const chat = context.agent === 'chat';
      const body: Record<string, unknown> = {
        model: options.model,
        messages,
        max_tokens: options.maxTokens ?? 2048,
        ...(chat ? { tools: context.functions ?? [] } : { stop: STOP_SEQUENCES }),
        stream: false,
      };
      if (options.temperature !== undefined) body.temperature = options.temperature;
      if (acceptsSeed && (options.seed !== undefined || context.seed !== undefined))
        body.seed = sampleSeed(options.seed, context.seed, context.turn);
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

      for (let attempt = 0; ; ) {
        const outcome = await post(endpoint, headers, body, timeoutMs, context.signal);
        if (outcome.kind === 'ok') {
          const text = outcome.content;
          const usage: TokenUsage = outcome.usage ?? approximateUsage(messages, text);
          if (!chat) return { text, usage };
          return {
            text,
            message: {
              role: 'assistant' as const,
              content: text,
              ...(outcome.toolCalls ? { tool_calls: outcome.toolCalls } : {}),
            },
            usage,
          };
        }
        if (
          outcome.kind === 'fatal' &&
          outcome.status === 400 &&
          body.seed !== undefined &&
          /\bseed\b/i.test(outcome.message)
        ) {
          delete body.seed;
          acceptsSeed = false;
          continue;
        }
        if (outcome.kind === 'fatal' || attempt >= retries)
          throw new PolicyRequestError(
            `${endpoint}: ${outcome.message}${attempt > 0 ? ` (after ${attempt + 1} tries)` : ''}`,
            outcome.status,
          );
        const backoff = outcome.retryAfterMs ?? retryDelayMs * 2 ** attempt;
        await sleep(Math.min(backoff, MAX_RETRY_AFTER_MS), undefined, { signal: context.signal });
        attempt++;
      }
    },
  };
}

type Outcome =
  | { kind: 'ok'; content: string; usage?: TokenUsage; toolCalls?: ChatToolCall[] }
  | { kind: 'retry'; message: string; status?: number; retryAfterMs?: number }
  | { kind: 'fatal'; message: string; status?: number };

async function post(
  endpoint: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Outcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timeout.aborted) return { kind: 'retry', message: `no answer within ${timeoutMs} ms` };
    return { kind: 'retry', message: `request failed (${fetchFailure(error)})` };
  }
  if (response.status === 429 || response.status >= 500) {
    return {
      kind: 'retry',
      status: response.status,
      message: `answered ${response.status}: ${text.slice(0, 200)}`,
      retryAfterMs: retryAfter(response.headers.get('retry-after')),
    };
  }
  if (!response.ok)
    return { kind: 'fatal', status: response.status, message: `answered ${response.status}: ${text.slice(0, 300)}` };
  let json: {
    choices?: { message?: { content?: unknown; tool_calls?: unknown } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return {
      kind: 'fatal',
      status: response.status,
      message: `answered something that is not JSON: ${text.slice(0, 200)}`,
    };
  }
  const message = json.choices?.[0]?.message;
  if (!message) return { kind: 'fatal', status: response.status, message: 'answered without choices[0].message' };
  // A null content (a model that answered with native tool calls only) is an empty message: the loop rejects it and
  // says why.
  const content = typeof message.content === 'string' ? message.content : '';
  const prompt = json.usage?.prompt_tokens;
  const completion = json.usage?.completion_tokens;
  const usage = typeof prompt === 'number' && typeof completion === 'number' ? { prompt, completion } : undefined;
  // Native tool calls go to the episode as the server sent them: the episode checks their shape and says what is wrong.
  const toolCalls =
    Array.isArray(message.tool_calls) && message.tool_calls.length > 0
      ? (message.tool_calls as ChatToolCall[])
      : undefined;
  return { kind: 'ok', content, ...(usage ? { usage } : {}), ...(toolCalls ? { toolCalls } : {}) };
}

/** The chat completions URL for a server root, its `/v1`, or the endpoint itself. */
export function chatEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`policy URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`policy URL ${url} must be http or https`);
  const path = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = path.endsWith('/chat/completions')
    ? path
    : path.endsWith('/v1')
      ? `${path}/chat/completions`
      : `${path}/v1/chat/completions`;
  return parsed.toString();
}

/** Retry-After in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
