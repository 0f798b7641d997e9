/** A sentence encoder, as the dense retriever sees it. */
export interface Embedder {
  /** File-name-safe name of the model: one vector file per model. */
  readonly key: string;
  /** Changes whenever the vectors it makes would change (model files, pooling, prefixes). */
  readonly signature: string;
  readonly dim: number;
  /** Unit-length vectors for search queries. */
  embedQueries(texts: string[]): Promise<Float32Array[]>;
  /** Unit-length vectors for tool passages. */
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * Passages the index build embeds at once, of similar length: 8 cost less CPU per passage than 16, 32 or 64 (less
 * padding, activations that stay in cache; docs/retrieval.md, Speed and size).
 */
export const PASSAGE_BATCH = 8;
