import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LRUCache } from 'lru-cache';
import { CacheError } from './cache-error.js';
import { DEFAULT_MAX_ENTRY_BYTES, entryBytes } from './cache-limits.js';
import { CACHE_MODES, type CacheMode } from './cache-mode.js';
import type {
  CachedResponse,
  CacheEntry,
  CacheOptions,
  CacheStats,
  ImportCounts,
  ImportEntry,
  PutOutcome,
  CacheBackend,
  StoredHit,
} from './cache-types.js';
import { canonicalJson } from './canonical.js';
import type { Arguments } from './types.js';
import { mergeHits, type PendingHits } from './pending-hits.js';
import { untouchedBodyText } from './stored-result.js';

export { CACHE_MODES, CacheError, type CacheMode };
export type * from './cache-types.js';

export interface SqliteCacheOptions extends CacheOptions {
  /** How long a write waits for another process's write lock before failing (SQLite busy_timeout); default 5000. */
  busyTimeoutMs?: number;
}

const SCHEMA_VERSION = '1';
/** Bytes of stored rows kept in memory for repeated hits: an RL rollout group repeats the same calls many times. */
const HOT_BYTES = 64 * 1024 * 1024;

type HotRow = { id: number; status: number; body: string; source: string };
/** Pending hit counts written at once when this many distinct entries were hit since the last flush. */
const MAX_PENDING_HITS = 65_536;

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
  id INTEGER PRIMARY KEY,
  tool TEXT NOT NULL,
  args TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_hit_at INTEGER,
  hits INTEGER NOT NULL DEFAULT 0,
  UNIQUE (tool, args)
);
`;

interface Row {
  tool: string;
  args: string;
  status: number;
  body: string;
  source: string;
  created_at: number;
  last_hit_at: number | null;
  hits: number;
}

interface QueuedPut {
  toolId: string;
  args: Arguments;
  response: CachedResponse;
  resolve: (outcome: PutOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The embedded response cache: one SQLite file keyed by tool id + canonical JSON of the arguments.
 *
 * Durability: WAL with synchronous=NORMAL. A write is committed to the WAL file before `put` returns, so an
 * acknowledged entry survives the process being killed (even with SIGKILL): the bytes are in the OS page cache.
 * Only a power loss or OS crash can drop the last commits (NORMAL does not fsync the WAL on each commit).
 * Hit counts and last-hit times are statistics, batched in memory (see `hitFlushMs`): a killed process loses at
 * most the last interval of them, never an entry.
 */
export class ResponseCache implements CacheBackend {
  readonly file: string;
  readonly mode: Exclude<CacheMode, 'off'>;
  readonly maxEntryBytes: number;
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string, string], HotRow>;
  /**
   * Rows read recently, by tool and canonical arguments. Entries never change once written (the first answer stays),
   * so a memoized row is only stale after an `import --replace` by another process; this process clears it on import.
   */
  private readonly hot = new LRUCache<string, HotRow>({
    maxSize: HOT_BYTES,
    sizeCalculation: (row, key) => row.body.length + key.length + 64,
  });
  private readonly insert: Database.Statement<unknown[]> | undefined;
  private readonly pending: PendingHits<number> = new Map();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly busyTimeoutMs: number;
  private readonly maxBytes: number | undefined;
  /** Whether the file reached `maxBytes` when last looked at (at open, then with every hit flush). */
  private full = false;
  /** Write-backs waiting for the end of this turn of the event loop (`putBatched`). */
  private queued: QueuedPut[] = [];

  private constructor(
    file: string,
    mode: Exclude<CacheMode, 'off'>,
    db: Database.Database,
    options: SqliteCacheOptions,
  ) {
    this.file = file;
    this.mode = mode;
    this.maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    this.maxBytes = options.maxBytes || undefined;
    this.db = db;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.select = db.prepare('SELECT id, status, body, source FROM responses WHERE tool = ? AND args = ?');
    if (mode === 'read-write') {
      this.insert = db.prepare(
        'INSERT INTO responses (tool, args, status, body, source, created_at, last_hit_at, hits) VALUES (?, ?, ' +
          '?, ?, ?, ?, ?, ?) ON CONFLICT (tool, args) DO NOTHING',
      );
      this.checkSize();
      this.timer = setInterval(() => {
        this.tryFlushHits();
        this.checkSize();
      }, options.hitFlushMs ?? 1000);
      this.timer.unref();
    }
  }

  /** Opens (read-write: creating) the cache file. */
  static open(file: string, options: SqliteCacheOptions = {}): ResponseCache {
    const mode = options.mode ?? 'read-write';
    const timeout = options.busyTimeoutMs ?? 5000;
    if (mode === 'read-only' && !existsSync(file)) throw new CacheError(`no response cache at ${file}`);
    let db: Database.Database | undefined;
    try {
      if (mode === 'read-only') {
        db = new Database(file, { readonly: true, fileMustExist: true, timeout });
      } else {
        mkdirSync(dirname(file), { recursive: true });
        const created = !existsSync(file);
        db = new Database(file, { timeout });
        const opened = db;
        // A new file holds nothing a crash could lose: its switch to WAL skips the fsyncs (30–60 ms of a start here).
        if (created) db.pragma('synchronous = OFF');
        // Worker processes open one new file at once: switching it to WAL can answer SQLITE_BUSY without waiting
        // on busy_timeout, so it is retried until the timeout; the schema is written under an immediate lock.
        whileBusy(timeout, () => opened.pragma('journal_mode = WAL'));
        db.pragma('synchronous = NORMAL');
        db.transaction(() => {
          opened.exec(DDL);
          opened.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('schema_version', SCHEMA_VERSION);
        }).immediate();
      }
      const version = readVersion(db);
      if (version !== SCHEMA_VERSION)
        throw new CacheError(`schema version ${version ?? 'none'}, expected ${SCHEMA_VERSION}`);
    } catch (error) {
      db?.close();
      throw new CacheError(
        `${file} is not a usable ToolEnv response cache: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return new ResponseCache(file, mode, db, { ...options, busyTimeoutMs: timeout });
  }

  get writable(): boolean {
    return this.mode === 'read-write';
  }

  /** The stored answer for a call, or undefined. A read-write cache counts the hit (written in batches). */
  get(toolId: string, args: Arguments): CachedResponse | undefined {
    const hit = this.getText(toolId, args);
    return hit && { status: hit.status, body: JSON.parse(hit.text), source: hit.source };
  }

  /** `get` with the body left as its stored JSON text. */
  getText(toolId: string, args: Arguments): StoredHit | undefined {
    const canonical = canonicalJson(args);
    const key = `${toolId}\u0000${canonical}`;
    let row = this.hot.get(key);
    if (!row) {
      row = this.select.get(toolId, canonical);
      if (!row) return undefined;
      this.hot.set(key, row);
    }
    if (this.insert) this.countHit(row.id);
    return { status: row.status, text: row.body, source: row.source };
  }

  /**
   * Up to `limit` answers below status 400 stored for one tool, newest first: the model responders' few-shot examples.
   */
  examples(toolId: string, limit: number): { arguments: Arguments; status: number; body: unknown }[] {
    const rows = this.db
      .prepare<[string, number], { args: string; status: number; body: string }>(
        'SELECT args, status, body FROM responses WHERE tool = ? AND status < 400 ORDER BY id DESC LIMIT ?',
      )
      .all(toolId, limit);
    return rows.map((row) => ({
      arguments: JSON.parse(row.args) as Arguments,
      status: row.status,
      body: JSON.parse(row.body),
    }));
  }

  /**
   * Stores an answer unless the call already has one (the first answer stays), it is over `maxEntryBytes` or the file
   * is full.
   */
  put(toolId: string, args: Arguments, response: CachedResponse): PutOutcome {
    if (!this.insert) throw new CacheError(`${this.file} is open read-only`);
    if (this.full) return 'full';
    const body = untouchedBodyText(response) ?? JSON.stringify(response.body) ?? 'null';
    const canonical = canonicalJson(args);
    if (entryBytes(canonical, body) > this.maxEntryBytes) return 'too_large';
    return this.insert.run(toolId, canonical, response.status, body, response.source, Date.now(), null, 0).changes > 0
      ? 'stored'
      : 'kept';
  }

  /**
   * `put` with group commit, for the simulator's write-back: the answers of the misses of one turn of the event loop
   * are stored in one transaction at its end — one WAL commit for all of them, a fourth of a lone commit's cost per
   * entry when rollouts miss together. Each promise settles once its entry is committed, so an answer sent after it
   * is as durable as one sent after `put`.
   */
  putBatched(toolId: string, args: Arguments, response: CachedResponse): Promise<PutOutcome> {
    return new Promise((resolve, reject) => {
      if (this.queued.push({ toolId, args, response, resolve, reject }) === 1) setImmediate(() => this.commitQueued());
    });
  }

  private commitQueued(): void {
    const batch = this.queued;
    this.queued = [];
    if (batch.length === 0) return;
    let outcomes: PutOutcome[];
    try {
      outcomes = this.db.transaction(() => batch.map((entry) => this.put(entry.toolId, entry.args, entry.response)))();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, i) => entry.resolve(outcomes[i]!));
  }

  /**
   * Imports entries in one transaction: a bad entry (the iterable throws) rolls all of them back, so nothing
   * already cached is lost or half-replaced. Existing entries are kept unless `replace`.
   */
  import(entries: Iterable<ImportEntry>, options: { replace?: boolean } = {}): ImportCounts {
    if (!this.insert) throw new CacheError(`${this.file} is open read-only`);
    const insert = this.insert;
    const update = this.db.prepare(
      'UPDATE responses SET status = ?, body = ?, source = ?, created_at = ? WHERE tool = ? AND args = ?',
    );
    const counts: ImportCounts = { inserted: 0, replaced: 0, kept: 0 };
    this.hot.clear();
    this.db
      .transaction(() => {
        for (const entry of entries) {
          const args = canonicalJson(entry.arguments);
          const body = JSON.stringify(entry.body) ?? 'null';
          const created = entry.created_at === undefined ? Date.now() : Date.parse(entry.created_at);
          const lastHit = entry.last_hit_at ? Date.parse(entry.last_hit_at) : null;
          if (
            insert.run(entry.tool, args, entry.status, body, entry.source, created, lastHit, entry.hits ?? 0).changes >
            0
          )
            counts.inserted++;
          else if (options.replace) {
            update.run(entry.status, body, entry.source, created, entry.tool, args);
            counts.replaced++;
          } else counts.kept++;
        }
      })
      .immediate();
    return counts;
  }

  /** Every entry in insertion order, parsed one at a time. */
  *entries(): IterableIterator<CacheEntry> {
    this.flushHits();
    const rows = this.db
      .prepare<[], Row>(
        'SELECT tool, args, status, body, source, created_at, last_hit_at, hits FROM responses ORDER BY id',
      )
      .iterate();
    for (const row of rows) {
      yield {
        tool: row.tool,
        arguments: JSON.parse(row.args) as Arguments,
        status: row.status,
        body: JSON.parse(row.body),
        source: row.source,
        created_at: new Date(row.created_at).toISOString(),
        last_hit_at: row.last_hit_at === null ? null : new Date(row.last_hit_at).toISOString(),
        hits: row.hits,
      };
    }
  }

  count(): number {
    return this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM responses').get()!.n;
  }

  stats(top = 10): CacheStats {
    this.flushHits();
    const totals = this.db
      .prepare<[], { entries: number; tools: number; hits: number | null }>(
        'SELECT count(*) AS entries, count(DISTINCT tool) AS tools, sum(hits) AS hits FROM responses',
      )
      .get()!;
    const by_source: Record<string, number> = {};
    for (const row of this.db
      .prepare<[], { source: string; n: number }>(
        'SELECT source, count(*) AS n FROM responses GROUP BY source ORDER BY n DESC',
      )
      .all()) {
      by_source[row.source] = row.n;
    }
    const top_tools = this.db
      .prepare<[number], { tool: string; entries: number; hits: number }>(
        'SELECT tool, count(*) AS entries, sum(hits) AS hits FROM responses GROUP BY tool ORDER BY entries ' +
          'DESC, hits DESC, tool LIMIT ?',
      )
      .all(top);
    const size_bytes = ['', '-wal', '-shm'].reduce(
      (sum, suffix) => sum + (existsSync(this.file + suffix) ? statSync(this.file + suffix).size : 0),
      0,
    );
    return {
      file: this.file,
      entries: totals.entries,
      tools: totals.tools,
      hits: totals.hits ?? 0,
      by_source,
      top_tools,
      size_bytes,
    };
  }

  /** Writes the gathered hit counts in one transaction; on failure they stay gathered for the next flush. */
  flushHits(): void {
    if (this.pending.size === 0 || !this.db.open) return;
    const update = this.db.prepare(
      'UPDATE responses SET hits = hits + ?, last_hit_at = max(coalesce(last_hit_at, 0), ?) WHERE id = ?',
    );
    const batch = [...this.pending];
    this.pending.clear();
    try {
      this.db
        .transaction(() => {
          for (const [id, { hits, last }] of batch) update.run(hits, last, id);
        })
        .immediate();
    } catch (error) {
      for (const [id, counted] of batch) mergeHits(this.pending, id, counted.hits, counted.last);
      throw error;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (!this.db.open) return;
    this.commitQueued();
    this.flushHits();
    this.db.close();
  }

  /** The pages in use (the WAL's committed ones included) against `maxBytes`: two pragmas, no scan. */
  private checkSize(): void {
    if (this.maxBytes === undefined || !this.db.open) return;
    const pages =
      (this.db.pragma('page_count', { simple: true }) as number) -
      (this.db.pragma('freelist_count', { simple: true }) as number);
    this.full = pages * (this.db.pragma('page_size', { simple: true }) as number) >= this.maxBytes;
  }

  private countHit(id: number): void {
    if (mergeHits(this.pending, id, 1, Date.now()) && this.pending.size >= MAX_PENDING_HITS) this.tryFlushHits();
  }

  /**
   * A flush from the hit path or the timer: it must neither fail a hit nor stall the event loop, so it does not
   * wait for another process's write lock (busy_timeout 0 meanwhile) and a failed flush keeps the counts for the
   * next one; a lasting failure surfaces from the flush of `stats`, `entries` or `close`.
   */
  private tryFlushHits(): void {
    if (this.pending.size === 0 || !this.db.open) return;
    this.db.pragma('busy_timeout = 0');
    try {
      this.flushHits();
    } catch {
      // The counts were merged back into `pending`.
    } finally {
      this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}

/**
 * Opens a cache file in a mode: undefined for `off`, so callers simply have no cache. A --cache that may be a URL:
 * `openResponseCache`.
 */
export function openCache(
  file: string,
  mode: CacheMode = 'read-write',
  options: Omit<SqliteCacheOptions, 'mode'> = {},
): ResponseCache | undefined {
  if (!CACHE_MODES.includes(mode))
    throw new CacheError(`cache mode must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  return mode === 'off' ? undefined : ResponseCache.open(file, { ...options, mode });
}

function readVersion(db: Database.Database): string | undefined {
  try {
    return db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value;
  } catch {
    return undefined;
  }
}

/** Runs `fn`, again every 20 ms while SQLite answers SQLITE_BUSY, for at most `timeoutMs`. */
function whileBusy<T>(timeoutMs: number, fn: () => T): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
