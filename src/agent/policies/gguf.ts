import { ContextOverflowError, LlamaEngine, type GpuChoice } from '../../simulator/llama/engine.js';
import type { ChatMessage, Policy, PolicyContext } from '../types.js';
import { sampleSeed } from './sample-seed.js';

/**
 * `gguf:FILE`: a local GGUF model through node-llama-cpp (the project's LlamaEngine, loaded on the first turn). Its
 * parallel sequences serve concurrent runs. When a conversation outgrows the context, the oldest exchanges after the
 * task are dropped (system prompt and task always stay), so a long run keeps going instead of failing.
 */

export interface GgufPolicyOptions {
  file: string;
  gpu?: GpuChoice;
  gpuLayers?: number | 'auto';
  /** Tokens per sequence; default the smaller of 4096 and the model's training context (LlamaEngine's default). */
  contextSize?: number;
  /** Runs generated at once; default 4. */
  parallel?: number;
  threads?: number;
  /** Default 1024. */
  maxTokens?: number;
  /** Default 0.7 (the paper's decoding temperature). */
  temperature?: number;
  /**
   * Mixed with each run's seed and the turn (sampleSeed): runs sample differently, reruns with the same seeds alike.
   */
  seed?: number;
  log?: (line: string) => void;
}

export function ggufPolicy(options: GgufPolicyOptions): Policy {
  const engine = new LlamaEngine({
    model: options.file,
    gpu: options.gpu,
    gpuLayers: options.gpuLayers,
    contextSize: options.contextSize,
    parallel: options.parallel,
    threads: options.threads,
    log: options.log,
  });
  const maxTokens = options.maxTokens ?? 1024;
  return {
    name: `gguf:${options.file}`,
    async next(messages: readonly ChatMessage[], context: PolicyContext) {
      const info = await engine.load();
      let kept = fit(messages, info.contextSize - maxTokens, (text) => engine.countTokens(text));
      for (;;) {
        try {
          const generation = await engine.generate({
            // Text agents only: the chat agent refuses a policy without native tool calls, so no tool message comes
            // here.
            messages: kept.filter(
              (m): m is ChatMessage & { role: 'system' | 'user' | 'assistant' } => m.role !== 'tool',
            ),
            schema: undefined,
            text: true,
            maxTokens,
            temperature: options.temperature ?? 0.7,
            seed: sampleSeed(options.seed, context.seed, context.turn),
            signal: context.signal ?? new AbortController().signal,
          });
          return {
            text: generation.text,
            usage: { prompt: generation.promptTokens, completion: generation.completionTokens },
          };
        } catch (error) {
          // The chat template's own tokens are not in the estimate; drop one more exchange and try again.
          if (!(error instanceof ContextOverflowError) || kept.length <= 2) throw error;
          const shorter = dropOldest(kept);
          if (shorter.length === kept.length) throw error;
          kept = shorter;
        }
      }
    },
    close: () => engine.close(),
  };
}

/** Tokens the chat template adds around each message (role markers, separators), a generous estimate. */
const TEMPLATE_TOKENS_PER_MESSAGE = 8;

/** The messages that fit `budget` tokens: system prompt and task first, then the newest exchanges. */
export function fit(messages: readonly ChatMessage[], budget: number, count: (text: string) => number): ChatMessage[] {
  const cost = (m: ChatMessage) => count(m.content) + TEMPLATE_TOKENS_PER_MESSAGE;
  let kept = [...messages];
  let total = kept.reduce((n, m) => n + cost(m), 0);
  while (total > budget && kept.length > 2) {
    const shorter = dropOldest(kept);
    if (shorter.length === kept.length) break;
    total -= kept.slice(2, 2 + kept.length - shorter.length).reduce((n, m) => n + cost(m), 0);
    kept = shorter;
  }
  return kept;
}

/**
 * Drops the oldest assistant message after the task with the observation that answered it, so the conversation
 * keeps alternating. The last message (what the model answers now) always stays.
 */
function dropOldest(messages: readonly ChatMessage[]): ChatMessage[] {
  if (messages.length <= 4) return [...messages];
  return [...messages.slice(0, 2), ...messages.slice(4)];
}
