import {
  createModelResponder,
  type Generation,
  type GenerationRequest,
  type ModelResponder,
  type ModelResponderOptions,
  type TextGenerator,
} from './model-responder.js';
import { BoundedQueue, ResponderBusyError } from './queue.js';

/**
 * How the response schema travels: OpenAI's `response_format` (vLLM, SGLang, llama-server, OpenAI) or vLLM's older
 * `guided_json`.
 */
export type SchemaField = 'response_format' | 'guided_json';

export interface OpenAIGeneratorOptions {
  /** The server: its root (`http://host:8000`), its `/v1`, or the full `/v1/chat/completions` URL. */
  url: string;
  /** The served model's name; default the first one `GET /v1/models` lists. */
  model?: string;
  /** Sent as `Authorization: Bearer KEY`. */
  apiKey?: string;
  schemaField?: SchemaField;
  /** `json_schema.strict`; default false (tool schemas rarely meet OpenAI's strict-mode rules). */
  strict?: boolean;
  /** Requests in flight at once; default 16. */
  concurrency?: number;
  /** Calls that may wait for a slot before more are refused as busy; default 16 × concurrency. */
  maxWaiting?: number;
  /** Characters per token for the prompt budget (the remote tokenizer is out of reach); default 4. */
  charsPerToken?: number;
  /** Where a user names the model when the server lists none, for the error; default `--responder-model`. */
  modelFlag?: string;
}

/** A remote OpenAI-compatible `/v1/chat/completions` server as a TextGenerator, asking for schema-guided JSON. */
export class OpenAIGenerator implements TextGenerator {
  readonly label: string;
  readonly endpoint: string;
  readonly queue: BoundedQueue;
  private readonly options: OpenAIGeneratorOptions;
  private model: Promise<string> | undefined;

  constructor(options: OpenAIGeneratorOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new Error(`responder URL ${JSON.stringify(options.url)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`responder URL ${options.url} must be http or https`);
    const path = url.pathname.replace(/\/+$/, '');
    url.pathname = path.endsWith('/chat/completions')
      ? path
      : path.endsWith('/v1')
        ? `${path}/chat/completions`
        : `${path}/v1/chat/completions`;
    this.endpoint = url.toString();
    this.options = options;
    this.label = `openai:${this.endpoint}`;
    const concurrency = options.concurrency ?? 16;
    this.queue = new BoundedQueue({
      name: `responder ${this.endpoint}`,
      concurrency,
      maxWaiting: options.maxWaiting ?? 16 * concurrency,
    });
  }

  async ready(): Promise<void> {
    await this.modelName();
  }

  countTokens(text: string): number {
    return Math.ceil(text.length / (this.options.charsPerToken ?? 4));
  }

  generate(request: GenerationRequest): Promise<Generation> {
    return this.queue.run(async () => {
      const body: Record<string, unknown> = {
        model: await this.modelName(),
        messages: request.messages,
        max_tokens: request.maxTokens,
        temperature: request.temperature,
        seed: request.seed,
        stream: false,
      };
      if (request.schema === undefined) body.response_format = { type: 'json_object' };
      else if (this.options.schemaField === 'guided_json') body.guided_json = request.schema;
      else
        body.response_format = {
          type: 'json_schema',
          json_schema: { name: 'response', schema: request.schema, strict: this.options.strict ?? false },
        };

      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(body),
        signal: request.signal,
      });
      const text = await response.text();
      if (response.status === 429 || response.status === 503) {
        throw new ResponderBusyError(`responder ${this.endpoint}`, retryAfter(response.headers.get('retry-after')));
      }
      if (!response.ok) throw new Error(`${this.endpoint} answered ${response.status}: ${text.slice(0, 300)}`);
      const completion = parseCompletion(text, this.endpoint);
      return {
        text: completion.content,
        promptTokens:
          completion.usage?.prompt_tokens ?? request.messages.reduce((n, m) => n + this.countTokens(m.content), 0),
        completionTokens: completion.usage?.completion_tokens ?? this.countTokens(completion.content),
        truncated: completion.finishReason === 'length',
      };
    }, request.signal);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  /**
   * The configured model name, else the first model the server lists (asked once; a failed ask is asked again next
   * call).
   */
  modelName(): Promise<string> {
    if (this.options.model !== undefined) return Promise.resolve(this.options.model);
    this.model ??= this.listModels().catch((error: unknown) => {
      this.model = undefined;
      throw error;
    });
    return this.model;
  }

  private async listModels(): Promise<string> {
    const url = this.endpoint.replace(/\/chat\/completions$/, '/models');
    const response = await fetch(url, { headers: this.headers(), signal: AbortSignal.timeout(10_000) });
    const flag = this.options.modelFlag ?? '--responder-model';
    if (!response.ok) throw new Error(`${url} answered ${response.status}; pass the model name (${flag})`);
    const list = (await response.json()) as { data?: { id?: unknown }[] };
    const id = list.data?.[0]?.id;
    if (typeof id !== 'string') throw new Error(`${url} lists no model; pass the model name (${flag})`);
    return id;
  }
}

export interface OpenAIResponderOptions extends OpenAIGeneratorOptions, Omit<ModelResponderOptions, 'generator'> {}

export interface OpenAIResponder extends ModelResponder {
  readonly generator: OpenAIGenerator;
}

/** The model responder on a remote OpenAI-compatible server (vLLM, SGLang, llama-server, or another ToolEnv). */
export function createOpenAIResponder(options: OpenAIResponderOptions): OpenAIResponder {
  const generator = new OpenAIGenerator(options);
  return Object.assign(createModelResponder({ ...options, generator }), { generator });
}

interface Completion {
  content: string;
  finishReason: unknown;
  usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
}

function parseCompletion(text: string, endpoint: string): Completion {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${endpoint} answered something that is not JSON: ${text.slice(0, 200)}`);
  }
  const choice = (json as { choices?: { message?: { content?: unknown }; finish_reason?: unknown }[] }).choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== 'string') throw new Error(`${endpoint} answered without choices[0].message.content`);
  return { content, finishReason: choice?.finish_reason, usage: (json as { usage?: Completion['usage'] }).usage };
}

/** Retry-After in seconds (RFC 9110 allows seconds or an HTTP date); 1 when absent or unreadable. */
function retryAfter(header: string | null): number {
  if (header === null) return 1;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(1, Math.ceil((date - Date.now()) / 1000)) : 1;
}
