import type { CacheMode } from './cache-mode.js';
import type { FewShotExample } from './prompt/few-shot.js';
import type { Arguments } from './types.js';

/**
 * A stored answer. `source` is its provenance (example, model, synth, stabletoolbench, …); a hit is served as source
 * `cache`.
 */
export interface CachedResponse {
  status: number;
  body: unknown;
  source: string;
}

/** A hit as the hot path takes it: the body left as its stored JSON text, sent as is. */
export interface StoredHit {
  status: number;
  text: string;
  source: string;
}

/** One row as `cache export` writes it and `cache import` reads it (times are ISO 8601). */
export interface CacheEntry extends CachedResponse {
  tool: string;
  arguments: Arguments;
  created_at: string;
  last_hit_at: string | null;
  hits: number;
}

/** What an import hands over: a CacheEntry whose bookkeeping fields are optional. */
export interface ImportEntry extends CachedResponse {
  tool: string;
  arguments: Arguments;
  created_at?: string;
  last_hit_at?: string | null;
  hits?: number;
}

export interface ImportCounts {
  inserted: number;
  replaced: number;
  kept: number;
}

export interface CacheStats {
  /** The SQLite file, or the PostgreSQL URL without its password. */
  file: string;
  entries: number;
  tools: number;
  hits: number;
  by_source: Record<string, number>;
  top_tools: { tool: string; entries: number; hits: number }[];
  /** The file with its WAL (SQLite), or the tables with their indexes (PostgreSQL). */
  size_bytes: number;
}

/**
 * What a write-back did: stored it, kept the answer already there (the first answer stays), refused it as too large
 * (`maxEntryBytes`), or refused it because the cache is full (`maxBytes`).
 */
export type PutOutcome = 'stored' | 'kept' | 'too_large' | 'full';

/** An answer to a miss, and whether it may be stored (rule answers — failures — never are). */
export interface Produced {
  response: CachedResponse;
  cacheable: boolean;
}

/**
 * How a miss was settled by a cache that several processes share: `own` — this process produced the answer, and
 * `outcome` says what the write-back did (`error`: the database failed it; undefined: not cacheable); `stored` —
 * another process answered the same call first, and its stored answer is what every caller gets.
 */
export type Settled =
  | { kind: 'own'; produced: Produced; outcome: PutOutcome | 'error' | undefined }
  | { kind: 'stored'; hit: StoredHit };

/**
 * The response cache the simulator holds: SQLite (`ResponseCache`, embedded, synchronous) or PostgreSQL
 * (`PostgresCache`, shared by replicas, an in-process LRU in front). Calls that can be answered from memory return
 * plainly; the rest may return promises, so that the SQLite hot path never waits on a microtask.
 */
export interface CacheBackend {
  /** The file, or the URL without its password: what messages and `cache stats` name. */
  readonly file: string;
  readonly mode: Exclude<CacheMode, 'off'>;
  readonly writable: boolean;
  /** Entries larger than this (canonical arguments + body JSON, in UTF-8 bytes) are answered but not stored. */
  readonly maxEntryBytes: number;
  /** The stored answer for a call, its body as JSON text. A read-write cache counts the hit (written in batches). */
  getText(toolId: string, args: Arguments): StoredHit | undefined | Promise<StoredHit | undefined>;
  /** Stores an answer unless the call already has one or it is over `maxEntryBytes`. */
  put(toolId: string, args: Arguments, response: CachedResponse): PutOutcome | Promise<PutOutcome>;
  /** `put` committed together with the other write-backs of this turn of the event loop; settles once committed. */
  putBatched?(toolId: string, args: Arguments, response: CachedResponse): Promise<PutOutcome>;
  /**
   * Answers a miss once across every process sharing the cache: the first to claim the call produces and stores
   * its answer while the others wait (bounded) and read it. Absent where the cache is one process's own file.
   */
  settle?(toolId: string, args: Arguments, produce: () => Promise<Produced>): Promise<Settled>;
  /**
   * Up to `limit` answers below status 400 stored for one tool, newest first: the model responders' few-shot examples.
   */
  examples(toolId: string, limit: number): FewShotExample[] | Promise<FewShotExample[]>;
  /** Imports entries all at once or not at all; existing entries are kept unless `replace`. */
  import(entries: Iterable<ImportEntry>, options?: { replace?: boolean }): ImportCounts | Promise<ImportCounts>;
  /** Every entry in insertion order, read a batch at a time. */
  entries(): Iterable<CacheEntry> | AsyncIterable<CacheEntry>;
  count(): number | Promise<number>;
  stats(top?: number): CacheStats | Promise<CacheStats>;
  close(): void | Promise<void>;
}

/** Tuning shared by both back-ends. */
export interface CacheOptions {
  mode?: Exclude<CacheMode, 'off'>;
  /** Hit counts are gathered in memory and written at most this often (and on close); default 1000. */
  hitFlushMs?: number;
  /** See CacheBackend.maxEntryBytes; default DEFAULT_MAX_ENTRY_BYTES. */
  maxEntryBytes?: number;
  /**
   * Past this many bytes on disk (the SQLite file; the PostgreSQL table with its indexes), looked at once a second,
   * the cache takes no new entries: hits go on, nothing stored is ever evicted. Default none.
   */
  maxBytes?: number;
}
