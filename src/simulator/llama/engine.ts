import { availableParallelism } from 'node:os';
import { LRUCache } from 'lru-cache';
import type { ChatHistoryItem, Llama, LlamaChat, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type { JsonSchema } from '../../library/tool.js';
import type { ChatMessage, Generation, GenerationRequest, TextGenerator } from '../model-responder.js';
import { BoundedQueue } from '../queue.js';
import { grammarSchema } from './grammar-schema.js';
import { acquireRuntime } from './runtime.js';

export type GpuChoice = 'auto' | 'cuda' | 'vulkan' | 'cpu';

export interface LlamaEngineOptions {
  /** Path of a GGUF file. */
  model: string;
  /** Compute back-end; `auto` takes CUDA or Vulkan when present, else the CPU. Default auto. */
  gpu?: GpuChoice;
  /** Layers offloaded to the GPU: a number, or `auto` (as many as fit, node-llama-cpp's estimate). Default auto. */
  gpuLayers?: number | 'auto';
  /** Tokens per context sequence (prompt + answer); default the smaller of 4096 and the model's training context. */
  contextSize?: number;
  /** Context sequences, i.e. calls generated at once; default 4. */
  parallel?: number;
  /** Calls that may wait for a free sequence before more are refused as busy; default 16 × parallel. */
  maxWaiting?: number;
  /**
   * CPU threads; default half the cores (at least 1). More threads than free cores make llama.cpp spin, not speed up.
   */
  threads?: number;
  /** Where llama.cpp's warnings and errors go; default stderr. */
  log?: (line: string) => void;
}

export interface EngineInfo {
  model: string;
  /** The back-end in use: cuda, vulkan, metal, or false for the CPU. */
  gpu: string | false;
  gpuLayers: number;
  contextSize: number;
  trainContextSize: number;
  parallel: number;
  threads: number;
  loadMs: number;
}

/** Longest string the grammar writes where the schema sets no maxLength: longer is rarely real, and ends a loop. */
const MAX_STRING_LENGTH = 128;

/** A prompt that leaves no room in the context for `maxTokens` of answer (llama.cpp would otherwise drop its start). */
export class ContextOverflowError extends Error {
  constructor(promptTokens: number, maxTokens: number, contextSize: number) {
    super(
      `the prompt takes ${promptTokens} tokens; with ${maxTokens} for the answer it exceeds the context of ` +
        `${contextSize} (raise --ctx or lower --max-tokens)`,
    );
    this.name = 'ContextOverflowError';
  }
}

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  /** One LlamaChat per sequence; the queue guarantees one is free whenever a task runs. */
  free: LlamaChat[];
  info: EngineInfo;
  /** Lets go of the shared llama.cpp runtime. */
  release: () => Promise<void>;
}

/**
 * A GGUF model behind llama.cpp (node-llama-cpp, imported only when a model is first asked for): one context with
 * `parallel` sequences, each generating one call at a time, batched together by llama.cpp, behind a bounded queue.
 * The model loads once; a load that fails stays failed (every call then falls back) and says why in `loadError`.
 */
export class LlamaEngine implements TextGenerator {
  readonly label: string;
  readonly options: LlamaEngineOptions;
  readonly queue: BoundedQueue;
  private loading: Promise<Loaded> | undefined;
  private loaded: Loaded | undefined;
  private failure: Error | undefined;
  private readonly grammars = new LRUCache<string, Promise<LlamaGrammar>>({ max: 256 });
  /** Aborted by close(): generations in flight stop at their next token instead of meeting a disposed context. */
  private readonly closing = new AbortController();

  constructor(options: LlamaEngineOptions) {
    const parallel = options.parallel ?? 4;
    this.options = options;
    this.label = `llama:${options.model}`;
    this.queue = new BoundedQueue({
      name: `model ${options.model}`,
      concurrency: parallel,
      maxWaiting: options.maxWaiting ?? 16 * parallel,
    });
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Why the model could not be loaded, once a load has failed. */
  get loadError(): Error | undefined {
    return this.failure;
  }

  /** Loads the model (once; later calls share the first load). */
  async load(): Promise<EngineInfo> {
    this.loading ??= this.open().then(
      (loaded) => (this.loaded = loaded),
      (error: unknown) => {
        this.failure = new Error(
          `cannot load model ${this.options.model}: ${error instanceof Error ? error.message : String(error)}`,
        );
        throw this.failure;
      },
    );
    return (await this.loading).info;
  }

  async ready(): Promise<void> {
    await this.load();
  }

  countTokens(text: string): number {
    if (!this.loaded) throw new Error(`model ${this.options.model} is not loaded yet`);
    return this.loaded.model.tokenize(text).length;
  }

  async generate(request: GenerationRequest): Promise<Generation> {
    if (!this.loaded) await this.load();
    const loaded = this.loaded;
    if (!loaded || this.closed) throw new Error(`model ${this.options.model} is closed`);
    const signal = AbortSignal.any([request.signal, this.closing.signal]);
    return this.queue.run(async () => {
      const chat = loaded.free.pop()!;
      try {
        const chatHistory = history(request.messages);
        // Counted the way the chat template lays the messages out, role markers included.
        const promptTokens = chat.chatWrapper
          .generateContextState({ chatHistory })
          .contextText.tokenize(loaded.model.tokenizer).length;
        if (promptTokens + request.maxTokens > loaded.info.contextSize)
          throw new ContextOverflowError(promptTokens, request.maxTokens, loaded.info.contextSize);
        const grammar = request.text ? undefined : await this.grammar(loaded, request.schema);
        let completionTokens = 0;
        const result = await chat.generateResponse(chatHistory, {
          grammar,
          maxTokens: request.maxTokens,
          temperature: request.temperature,
          seed: request.seed,
          signal,
          stopOnAbortSignal: false,
          // Thinking models answer directly: the grammar constrains the answer, and thoughts only cost time here.
          budgets: { thoughtTokens: 0 },
          // llama.cpp's classic mild penalty: without it a small model repeats one digit or word until maxTokens.
          repeatPenalty: { lastTokens: 64, penalty: 1.1 },
          onToken: (tokens) => {
            completionTokens += tokens.length;
          },
        });
        return {
          text: result.response,
          promptTokens,
          completionTokens,
          truncated: result.metadata.stopReason === 'maxTokens',
        };
      } finally {
        loaded.free.push(chat);
      }
    }, signal);
  }

  /** Stops the generations in flight, then frees the model and its context; later calls fail. */
  async close(): Promise<void> {
    this.closing.abort(new Error(`model ${this.options.model} is closed`));
    const loaded = await this.loading?.catch(() => undefined);
    await this.queue.idle();
    if (!loaded || !this.loaded) return;
    this.loaded = undefined;
    await loaded.context.dispose();
    await loaded.model.dispose();
    await loaded.release();
  }

  private async open(): Promise<Loaded> {
    const started = performance.now();
    const { LlamaChat: Chat } = await import('node-llama-cpp');
    const threads = this.options.threads ?? Math.max(1, Math.floor(availableParallelism() / 2));
    const log = this.options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const recent: string[] = [];
    const gpu = this.options.gpu ?? 'auto';
    const runtime = await acquireRuntime(gpu, (line) => {
      recent.push(line);
      if (recent.length > 4) recent.shift();
      log(line);
    }).catch((error: Error) => {
      if (error.name !== 'NoBinaryFoundError' && error.message !== 'NoBinaryFoundError') throw error;
      throw new Error(
        `no prebuilt llama.cpp binary runs here for --gpu ${gpu} (cuda needs the NVIDIA driver, vulkan a ` +
          'Vulkan loader); try --gpu auto or cpu',
      );
    });
    let model: LlamaModel | undefined;
    try {
      model = await runtime.llama.loadModel({
        modelPath: this.options.model,
        gpuLayers: this.options.gpuLayers ?? 'auto',
      });
      const parallel = this.queue.concurrency;
      const contextSize = this.options.contextSize ?? Math.min(4096, model.trainContextSize);
      const context = await model.createContext({ contextSize, sequences: parallel, threads });
      const free = Array.from({ length: parallel }, () => new Chat({ contextSequence: context.getSequence() }));
      const info: EngineInfo = {
        model: this.options.model,
        gpu: runtime.llama.gpu,
        gpuLayers: model.gpuLayers,
        contextSize: context.contextSize,
        trainContextSize: model.trainContextSize,
        parallel,
        threads,
        loadMs: performance.now() - started,
      };
      return { model, context, free, info, release: runtime.release };
    } catch (error) {
      // llama.cpp's own explanation (a corrupt tensor, an unknown architecture…) reaches JS through a queued
      // callback, after the failure: wait for it, and say it with the error.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await model?.dispose();
      await runtime.release();
      throw new Error([(error as Error).message, ...recent].join('; '));
    }
  }

  /** The grammar for a response schema (simplified to what the grammar expresses), or for any JSON value. */
  private grammar(loaded: Loaded, schema: JsonSchema | undefined): Promise<LlamaGrammar> {
    const simplified = schema === undefined ? undefined : grammarSchema(schema, { maxStringLength: MAX_STRING_LENGTH });
    const key = simplified === undefined ? '' : JSON.stringify(simplified);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      const llama = loaded.model.llama;
      grammar =
        simplified === undefined
          ? llama.getGrammarFor('json')
          : // The simplified schema is plain JSON Schema; its static type is node-llama-cpp's narrower one. Should the
            // grammar builder still refuse it, any JSON will do: the answer is validated against the real schema
            // anyway.
            llama
              .createGrammarForJsonSchema(simplified as Parameters<Llama['createGrammarForJsonSchema']>[0])
              .catch(() => llama.getGrammarFor('json'));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }
}

function history(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  return messages.map(
    (m): ChatHistoryItem =>
      m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
  );
}
