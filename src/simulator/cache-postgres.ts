import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { CacheError } from './cache-error.js';
import { DEFAULT_MAX_ENTRY_BYTES, entryBytes } from './cache-limits.js';
import type { CacheMode } from './cache-mode.js';
import type {
  CachedResponse,
  CacheEntry,
  CacheOptions,
  CacheStats,
  ImportCounts,
  ImportEntry,
  Produced,
  PutOutcome,
  CacheBackend,
  Settled,
  StoredHit,
} from './cache-types.js';
import { canonicalJson } from './canonical.js';
import {
  CLAIM,
  createSchema,
  FILL,
  insertBatch,
  listen,
  readVersion,
  RELEASE,
  RESET_CHANNEL,
  SCHEMA_VERSION,
} from './cache-postgres-schema.js';
import type { FewShotExample } from './prompt/few-shot.js';
import type { Arguments } from './types.js';
import { mergeHits, type PendingHits } from './pending-hits.js';

export interface PostgresCacheOptions extends CacheOptions {
  /** Connections this process keeps to the database, besides the one that listens; default 8. */
  poolSize?: number;
  /** How long opening waits for a connection; default 5000 ms. */
  connectTimeoutMs?: number;
  /** How long a miss waits for another process that claimed the same call before answering it itself; default 120 s. */
  waitMs?: number;
  /** How long a claim holds without being renewed (a process that died holds it no longer); default 10 s. */
  leaseMs?: number;
}

const HOT_BYTES = 64 * 1024 * 1024;
const MAX_PENDING_HITS = 65_536;
/**
 * How often a waiting miss looks again without being told: a claim that ran out, a notification lost with its
 * connection.
 */
const POLL_MS = 500;
const IMPORT_BATCH = 500;

type HotRow = { id: string; status: number; body: string; source: string };

interface EntryRow {
  id: string;
  tool: string;
  args: string;
  status: number;
  body: string;
  source: string;
  created_at: Date;
  last_hit_at: Date | null;
  hits: string;
}

/**
 * The shared response cache: PostgreSQL tables keyed like the SQLite file (tool id + canonical JSON of the arguments,
 * stored as their SHA-256 so that no argument is too long for an index), read through an in-process LRU.
 *
 * Rows never change once written (the first answer stays), so the LRU answers repeated calls without a round trip;
 * an import that replaces entries tells every process to drop its LRU (NOTIFY). A miss is claimed in the database
 * (`toolenv_pending`, a lease renewed while the answer is produced): replicas missing the same call at once produce
 * one answer, the others wait for it (LISTEN, bounded) and serve the stored row. Hit counts are batched as in SQLite.
 */
export class PostgresCache implements CacheBackend {
  readonly file: string;
  readonly mode: Exclude<CacheMode, 'off'>;
  readonly maxEntryBytes: number;
  private readonly pool: pg.Pool;
  private readonly config: pg.ClientConfig;
  private listener: pg.Client | undefined;
  private readonly hot = new LRUCache<string, HotRow>({
    maxSize: HOT_BYTES,
    sizeCalculation: (row, key) => row.body.length + key.length + 64,
  });
  private readonly pending: PendingHits<string> = new Map();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly waitMs: number;
  private readonly leaseMs: number;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly maxBytes: number | undefined;
  /** Whether the table reached `maxBytes` when last looked at (at open, then once a second). */
  private full = false;

  private constructor(
    url: string,
    mode: Exclude<CacheMode, 'off'>,
    pool: pg.Pool,
    config: pg.ClientConfig,
    listener: pg.Client,
    options: PostgresCacheOptions,
  ) {
    this.file = redact(url);
    this.mode = mode;
    this.pool = pool;
    this.config = config;
    this.maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    this.waitMs = options.waitMs ?? 120_000;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.maxBytes = options.maxBytes || undefined;
    this.hear(listener);
    if (mode === 'read-write') {
      this.timer = setInterval(() => {
        void this.tryFlushHits();
        void this.checkSize();
      }, options.hitFlushMs ?? 1000);
      this.timer.unref();
    }
  }

  /** Connects (read-write: creating the tables); an unreachable server or a wrong URL is a CacheError naming it. */
  static async open(url: string, options: PostgresCacheOptions = {}): Promise<PostgresCache> {
    const mode = options.mode ?? 'read-write';
    const where = redact(url);
    const config = {
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      application_name: 'toolenv',
    };
    let pool: pg.Pool | undefined;
    let listener: pg.Client | undefined;
    try {
      pool = new pg.Pool({ ...config, max: options.poolSize ?? 8 });
      // An idle connection the server closed is replaced on next use; unhandled, its error would end the process.
      pool.on('error', () => {});
      if (mode === 'read-write') await createSchema(pool);
      const version = await readVersion(pool);
      if (version === undefined)
        throw new CacheError(`no ToolEnv response cache in ${where} (open it read-write once to create it)`);
      if (version !== SCHEMA_VERSION)
        throw new CacheError(
          `${where} is not a usable ToolEnv response cache: schema version ${version}, expected ${SCHEMA_VERSION}`,
        );
      listener = await listen(config);
    } catch (error) {
      await listener?.end().catch(() => {});
      await pool?.end().catch(() => {});
      if (error instanceof CacheError) throw error;
      throw new CacheError(`${where} is not a usable ToolEnv response cache: ${describe(error)}`);
    }
    const cache = new PostgresCache(url, mode, pool, config, listener, options);
    if (mode === 'read-write') await cache.checkSize();
    return cache;
  }

  get writable(): boolean {
    return this.mode === 'read-write';
  }

  getText(toolId: string, args: Arguments): StoredHit | undefined | Promise<StoredHit | undefined> {
    const canonical = canonicalJson(args);
    const memo = `${toolId}\u0000${canonical}`;
    const row = this.hot.get(memo);
    if (row) return this.served(row);
    return this.pool
      .query<HotRow>('SELECT id, status, body, source FROM toolenv_responses WHERE key = $1', [
        entryKey(toolId, canonical),
      ])
      .then(({ rows: [found] }) => {
        if (!found) return undefined;
        this.hot.set(memo, found);
        return this.served(found);
      });
  }

  async put(toolId: string, args: Arguments, response: CachedResponse): Promise<PutOutcome> {
    if (!this.writable) throw new CacheError(`${this.file} is open read-only`);
    if (this.full) return 'full';
    const canonical = canonicalJson(args);
    const body = JSON.stringify(response.body) ?? 'null';
    if (entryBytes(canonical, body) > this.maxEntryBytes) return 'too_large';
    const { rowCount } = await this.pool.query(
      'INSERT INTO toolenv_responses (key, tool, args, status, body, source) VALUES ($1, $2, $3, $4, $5, $6) ' +
        'ON CONFLICT (key) DO NOTHING',
      [entryKey(toolId, canonical), toolId, canonical, response.status, body, response.source],
    );
    return rowCount ? 'stored' : 'kept';
  }

  /**
   * A miss, answered once among the processes sharing the database. Errors of the database before `produce` was
   * called reject (the caller answers uncached); `produce`'s own errors reject after the claim is released.
   */
  async settle(toolId: string, args: Arguments, produce: () => Promise<Produced>): Promise<Settled> {
    if (!this.writable) throw new CacheError(`${this.file} is open read-only`);
    const canonical = canonicalJson(args);
    const key = entryKey(toolId, canonical);
    const hex = key.toString('hex');
    const memo = `${toolId}\u0000${canonical}`;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const { rows } = await this.pool.query<HotRow & { claimed: number }>(CLAIM, [key, this.owner, this.leaseMs]);
      const found = rows[0]!;
      if (found.id !== null) {
        const row = { id: found.id, status: found.status, body: found.body, source: found.source };
        this.hot.set(memo, row);
        return { kind: 'stored', hit: this.served(row) };
      }
      if (found.claimed > 0) return this.fill(key, hex, memo, toolId, canonical, produce);
      if (Date.now() >= deadline) break;
      await this.waitFor(hex, Math.min(POLL_MS, deadline - Date.now()));
    }
    // The claimer took longer than this process waits: answered here, the first stored answer still stays.
    const produced = await produce();
    return {
      kind: 'own',
      produced,
      outcome: produced.cacheable
        ? await this.put(toolId, args, produced.response).catch(() => 'error' as const)
        : undefined,
    };
  }

  async examples(toolId: string, limit: number): Promise<FewShotExample[]> {
    const { rows } = await this.pool.query<{ args: string; status: number; body: string }>(
      'SELECT args, status, body FROM toolenv_responses WHERE tool = $1 AND status < 400 ORDER BY id DESC LIMIT $2',
      [toolId, limit],
    );
    return rows.map((row) => ({
      arguments: JSON.parse(row.args) as Arguments,
      status: row.status,
      body: JSON.parse(row.body),
    }));
  }

  /**
   * Imports in one transaction: a bad entry (the iterable throws) rolls all of them back. When entries were
   * replaced, every process sharing the database drops its in-memory rows.
   */
  async import(entries: Iterable<ImportEntry>, options: { replace?: boolean } = {}): Promise<ImportCounts> {
    if (!this.writable) throw new CacheError(`${this.file} is open read-only`);
    const counts: ImportCounts = { inserted: 0, replaced: 0, kept: 0 };
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      let batch = new Map<string, unknown[]>();
      const write = async () => {
        if (batch.size === 0) return;
        const written = await insertBatch(client, [...batch.values()], options.replace ?? false);
        counts.inserted += written.inserted;
        counts.replaced += written.replaced;
        counts.kept += batch.size - written.inserted - written.replaced;
        batch = new Map();
      };
      for (const entry of entries) {
        const args = canonicalJson(entry.arguments);
        const key = entryKey(entry.tool, args);
        const hex = key.toString('hex');
        // A key twice in one statement cannot be inserted and updated at once: the earlier one is written first.
        if (batch.has(hex)) await write();
        const created = entry.created_at === undefined ? new Date() : new Date(entry.created_at);
        const lastHit = entry.last_hit_at ? new Date(entry.last_hit_at).toISOString() : null;
        batch.set(hex, [
          key,
          entry.tool,
          args,
          entry.status,
          JSON.stringify(entry.body) ?? 'null',
          entry.source,
          created.toISOString(),
          lastHit,
          entry.hits ?? 0,
        ]);
        if (batch.size >= IMPORT_BATCH) await write();
      }
      await write();
      if (counts.replaced > 0) await client.query(`NOTIFY ${RESET_CHANNEL}`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    this.hot.clear();
    return counts;
  }

  /** Every entry in insertion order, a thousand rows per query. */
  async *entries(): AsyncIterableIterator<CacheEntry> {
    await this.flushHits();
    let after = '0';
    for (;;) {
      const { rows } = await this.pool.query<EntryRow>(
        'SELECT id, tool, args, status, body, source, created_at, last_hit_at, hits FROM toolenv_responses ' +
          'WHERE id > $1 ORDER BY id LIMIT 1000',
        [after],
      );
      for (const row of rows) {
        yield {
          tool: row.tool,
          arguments: JSON.parse(row.args) as Arguments,
          status: row.status,
          body: JSON.parse(row.body),
          source: row.source,
          created_at: row.created_at.toISOString(),
          last_hit_at: row.last_hit_at === null ? null : row.last_hit_at.toISOString(),
          hits: Number(row.hits),
        };
      }
      if (rows.length < 1000) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM toolenv_responses');
    return rows[0]!.n;
  }

  async stats(top = 10): Promise<CacheStats> {
    await this.flushHits();
    const [totals, sources, tools, size] = await Promise.all([
      this.pool.query<{ entries: number; tools: number; hits: string | null }>(
        'SELECT count(*)::int AS entries, count(DISTINCT tool)::int AS tools, sum(hits) AS hits FROM toolenv_responses',
      ),
      this.pool.query<{ source: string; n: number }>(
        'SELECT source, count(*)::int AS n FROM toolenv_responses GROUP BY source ORDER BY n DESC',
      ),
      this.pool.query<{ tool: string; entries: number; hits: string }>(
        'SELECT tool, count(*)::int AS entries, sum(hits) AS hits FROM toolenv_responses GROUP BY tool ORDER ' +
          'BY entries DESC, hits DESC, tool LIMIT $1',
        [top],
      ),
      this.pool.query<{ bytes: string }>("SELECT pg_total_relation_size('toolenv_responses') AS bytes"),
    ]);
    const by_source: Record<string, number> = {};
    for (const row of sources.rows) by_source[row.source] = row.n;
    const row = totals.rows[0]!;
    return {
      file: this.file,
      entries: row.entries,
      tools: row.tools,
      hits: Number(row.hits ?? 0),
      by_source,
      top_tools: tools.rows.map((t) => ({ tool: t.tool, entries: t.entries, hits: Number(t.hits) })),
      size_bytes: Number(size.rows[0]!.bytes),
    };
  }

  /** Writes the gathered hit counts in one statement; on failure they stay gathered for the next flush. */
  async flushHits(): Promise<void> {
    await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    const run = this.pool
      .query(
        `UPDATE toolenv_responses AS r SET hits = r.hits + u.hits, ` +
          `last_hit_at = greatest(r.last_hit_at, to_timestamp(u.last / 1000.0))
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(id, hits, last) WHERE r.id = u.id`,
        [batch.map(([id]) => id), batch.map(([, c]) => c.hits), batch.map(([, c]) => c.last)],
      )
      .then(
        () => undefined,
        (error: unknown) => {
          for (const [id, counted] of batch) mergeHits(this.pending, id, counted.hits, counted.last);
          throw error;
        },
      );
    this.flushing = run.catch(() => {});
    await run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const wake of [...this.waiters.values()].flatMap((set) => [...set])) wake();
    try {
      if (this.writable) await this.flushHits();
    } finally {
      await this.listener?.end().catch(() => {});
      await this.pool.end();
    }
  }

  /** The claimer's side: produce with the lease renewed meanwhile, then store, release and tell the waiters at once. */
  private async fill(
    key: Buffer,
    hex: string,
    memo: string,
    toolId: string,
    canonical: string,
    produce: () => Promise<Produced>,
  ): Promise<Settled> {
    const renew = setInterval(
      () => {
        this.pool
          .query(
            "UPDATE toolenv_pending SET expires_at = now() + $3 * interval '1 millisecond' WHERE key = $1 AND " +
              'owner = $2',
            [key, this.owner, this.leaseMs],
          )
          .catch(() => {});
      },
      Math.max(50, this.leaseMs / 3),
    );
    let produced: Produced;
    try {
      produced = await produce();
    } catch (error) {
      await this.release(key, hex);
      throw error;
    } finally {
      clearInterval(renew);
    }
    const body = JSON.stringify(produced.response.body) ?? 'null';
    const refused = !produced.cacheable
      ? undefined
      : this.full
        ? 'full'
        : entryBytes(canonical, body) > this.maxEntryBytes
          ? 'too_large'
          : null;
    if (refused !== null) {
      await this.release(key, hex);
      return { kind: 'own', produced, outcome: refused };
    }
    const { status, source } = produced.response;
    let stored: string | null;
    try {
      const { rows } = await this.pool.query<{ id: string | null }>(FILL, [
        key,
        toolId,
        canonical,
        status,
        body,
        source,
        this.owner,
        hex,
      ]);
      stored = rows[0]!.id;
    } catch {
      await this.release(key, hex);
      return { kind: 'own', produced, outcome: 'error' };
    }
    if (stored !== null) {
      this.hot.set(memo, { id: stored, status, body, source });
      return { kind: 'own', produced, outcome: 'stored' };
    }
    // Another process stored its answer between this one's lookup and claim: the first answer is the one served.
    const { rows } = await this.pool.query<HotRow>(
      'SELECT id, status, body, source FROM toolenv_responses WHERE key = $1',
      [key],
    );
    if (!rows[0]) return { kind: 'own', produced, outcome: 'kept' };
    this.hot.set(memo, rows[0]);
    return { kind: 'stored', hit: this.served(rows[0]) };
  }

  /**
   * Takes notifications from a listening connection. One that is lost (the server restarted, the network broke) is
   * made again, once a second until it is: meanwhile waiters poll, and once back every memoized row is dropped (an
   * import may have replaced rows unheard) and every waiter looks again.
   */
  private hear(listener: pg.Client): void {
    this.listener = listener;
    listener.on('notification', (message) => {
      if (message.channel === RESET_CHANNEL) this.hot.clear();
      else if (message.payload) this.wake(message.payload);
    });
    let lost = false;
    const relisten = async () => {
      if (lost || this.closed) return;
      lost = true;
      this.listener = undefined;
      listener.end().catch(() => {});
      while (!this.closed) {
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
        const again = await listen(this.config).catch(() => undefined);
        if (!again) continue;
        if (this.closed) {
          await again.end().catch(() => {});
          return;
        }
        this.hot.clear();
        for (const hex of [...this.waiters.keys()]) this.wake(hex);
        this.hear(again);
        return;
      }
    };
    listener.on('error', () => void relisten());
    listener.on('end', () => void relisten());
  }

  private release(key: Buffer, hex: string): Promise<void> {
    return this.pool.query(RELEASE, [key, this.owner, hex]).then(
      () => undefined,
      // Unreleased, the claim runs out with its lease.
      () => undefined,
    );
  }

  private served(row: HotRow): StoredHit {
    if (this.writable) this.countHit(row.id);
    return { status: row.status, text: row.body, source: row.source };
  }

  private waitFor(hex: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(hex);
      if (!set) this.waiters.set(hex, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(hex) === set) this.waiters.delete(hex);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      set.add(done);
    });
  }

  private wake(hex: string): void {
    const set = this.waiters.get(hex);
    if (set) for (const done of [...set]) done();
  }

  private async checkSize(): Promise<void> {
    if (this.maxBytes === undefined || this.closed) return;
    const { rows } = await this.pool
      .query<{ bytes: string }>("SELECT pg_total_relation_size('toolenv_responses') AS bytes")
      .catch(() => ({ rows: [] }));
    if (rows[0]) this.full = Number(rows[0].bytes) >= this.maxBytes;
  }

  private countHit(id: string): void {
    if (mergeHits(this.pending, id, 1, Date.now()) && this.pending.size >= MAX_PENDING_HITS) void this.tryFlushHits();
  }

  /** A flush from the hit path or the timer: a failure keeps the counts for the next one. */
  private async tryFlushHits(): Promise<void> {
    if (this.closed) return;
    await this.flushHits().catch(() => {});
  }
}

/** The URL without its password, for messages and `cache stats`. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

function entryKey(toolId: string, canonical: string): Buffer {
  return createHash('sha256').update(toolId).update('\u0000').update(canonical).digest();
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  return message || code || 'unknown error';
}
