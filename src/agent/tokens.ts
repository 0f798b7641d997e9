import type { ChatMessage, TokenUsage } from './types.js';

/**
 * Token counts for policies that report none (the heuristic; a server that omits `usage`): one token per four
 * characters, the usual rule of thumb for English text and JSON under BPE tokenizers. Comparable across runs and
 * agents, not exact for any one model.
 */
export const CHARS_PER_TOKEN = 4;

export function approximateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The prompt is the whole conversation so far (each turn re-reads it); the completion is the new message. */
export function approximateUsage(messages: readonly ChatMessage[], completion: string): TokenUsage {
  return {
    prompt: messages.reduce((n, m) => n + approximateTokens(m.content), 0),
    completion: approximateTokens(completion),
  };
}
