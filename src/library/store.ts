import Database from 'better-sqlite3';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gzipSync, gunzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { LibraryError, missingLibrary } from './errors.js';
import { LIBRARY_FILE } from '../paths.js';
import type { ApiRecord, LibraryBatch, OriginFormat, Tool } from './tool.js';

export { LIBRARY_FILE };
const SCHEMA_VERSION = '1';

export interface ToolSummary {
  id: string;
  name: string;
  description: string;
  category: string;
}

export interface ListQuery {
  category?: string;
  /** Case-insensitive substring of id, name or description. */
  q?: string;
  limit?: number;
  /** The `next_cursor` of the previous page (decodeCursor). */
  cursor?: string;
}

export interface LibraryStats {
  tools: number;
  apis: number;
  categories: { category: string; tools: number }[];
  formats: Record<string, number>;
  with_response_schema: number;
  with_examples: number;
  build: Record<string, unknown> | null;
}

export { LibraryError };

const DDL =
  `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS apis (
  api_id TEXT PRIMARY KEY, title TEXT NOT NULL, provider TEXT NOT NULL, category TEXT NOT NULL,
  format TEXT NOT NULL, document BLOB
);
CREATE TABLE IF NOT EXISTS tools (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  category TEXT NOT NULL,
  format TEXT NOT NULL,
  api_id TEXT,
  method TEXT,
  path TEXT,
  has_response_schema INTEGER NOT NULL,
  has_examples INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tools_category ON tools(category, seq);
CREATE INDEX IF NOT EXISTS tools_api ON tools(api_id);
-- Covering index: listing every id (for nearest-id suggestions) must not scan the records.
CREATE INDEX IF NOT EXISTS tools_seq_id ON tools(seq, id);
-- What stats() reports, kept by triggers on every write: counting the tools table scans hundreds of megabytes.
CREATE TABLE IF NOT EXISTS tool_counts (
  category TEXT NOT NULL, format TEXT NOT NULL, has_response_schema INTEGER NOT NULL, has_examples INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (category, format, has_response_schema, has_examples)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS tool_counts_insert AFTER INSERT ON tools BEGIN
  INSERT INTO tool_counts VALUES (NEW.category, NEW.format, NEW.has_response_schema, NEW.has_examples, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS tool_counts_delete AFTER DELETE ON tools BEGIN
  UPDATE tool_counts SET n = n - 1
  WHERE category = OLD.category AND format = OLD.format AND ` +
  `has_response_schema = OLD.has_response_schema AND has_examples = OLD.has_examples;
  DELETE FROM tool_counts WHERE n = 0;
END;
CREATE TRIGGER IF NOT EXISTS tool_counts_update AFTER UPDATE OF ` +
  `category, format, has_response_schema, has_examples ON tools BEGIN
  UPDATE tool_counts SET n = n - 1
  WHERE category = OLD.category AND format = OLD.format AND ` +
  `has_response_schema = OLD.has_response_schema AND has_examples = OLD.has_examples;
  INSERT INTO tool_counts VALUES (NEW.category, NEW.format, NEW.has_response_schema, NEW.has_examples, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
  DELETE FROM tool_counts WHERE n = 0;
END;
`;

/** The tools of one combination of the counted columns: a row of tool_counts, or of the same count over tools. */
interface CountGroup {
  category: string;
  format: string;
  has_response_schema: number;
  has_examples: number;
  n: number;
}

const COUNT_GROUPS =
  'SELECT category, format, has_response_schema, has_examples, count(*) AS n FROM tools GROUP BY 1, 2, 3, 4';

/**
 * The library: one SQLite file of tool records and API documents. Opening reads nothing but the schema
 * version; records are parsed one at a time when asked for, behind a bounded LRU.
 */
export class LibraryStore {
  readonly dir: string;
  readonly file: string;
  private readonly db: Database.Database;
  private readonly parsed = new LRUCache<string, Tool>({ max: 4096 });
  private idList: string[] | undefined;
  /** Whether the file keeps tool_counts; libraries written before it are counted once, on first use. */
  private readonly storedCounts: boolean;
  private countedGroups: CountGroup[] | undefined;
  private readonly getRecord: Database.Statement<[string], { record: string }>;
  private readonly hasRecord: Database.Statement<[string], { found: number }>;

  private constructor(dir: string, db: Database.Database) {
    this.dir = dir;
    this.file = join(dir, LIBRARY_FILE);
    this.db = db;
    this.getRecord = db.prepare('SELECT record FROM tools WHERE id = ?');
    this.hasRecord = db.prepare('SELECT 1 AS found FROM tools WHERE id = ?');
    this.storedCounts = hasTable(db, 'tool_counts');
  }

  static exists(dir: string): boolean {
    return existsSync(join(dir, LIBRARY_FILE));
  }

  /** Opens an existing library read-only. */
  static open(dir: string): LibraryStore {
    const file = join(dir, LIBRARY_FILE);
    if (!existsSync(file)) throw missingLibrary(dir, file);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    const store = new LibraryStore(dir, db);
    const version = store.meta('schema_version');
    if (version !== SCHEMA_VERSION) {
      db.close();
      throw new LibraryError(
        `${file} has library schema version ${version ?? 'none'}, this ToolEnv reads ${SCHEMA_VERSION}; rebuild it`,
      );
    }
    return store;
  }

  /** Opens a library for writing, creating it when missing. */
  static openWritable(dir: string): LibraryStore {
    mkdirSync(dir, { recursive: true });
    const db = new Database(join(dir, LIBRARY_FILE));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.transaction(() => {
      const counted = hasTable(db, 'tool_counts');
      db.exec(DDL);
      // A library written before tool_counts existed: count what it holds once; the triggers keep it from here on.
      if (!counted) db.exec(`INSERT INTO tool_counts ${COUNT_GROUPS}`);
      db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('schema_version', SCHEMA_VERSION);
    })();
    return new LibraryStore(dir, db);
  }

  close(): void {
    this.db.close();
  }

  meta(key: string): string | undefined {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.db
      .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(key, value);
  }

  /** Writes a batch in one transaction: either all of it lands or none. Tools with an existing id are replaced. */
  write(batch: LibraryBatch): void {
    const putApi = this.db.prepare(
      `INSERT INTO apis (api_id, title, provider, category, format, document) ` +
        `VALUES (@api_id, @title, @provider, @category, @format, @document)
       ON CONFLICT(api_id) DO UPDATE SET title = excluded.title, provider = excluded.provider, ` +
        `category = excluded.category,
       format = excluded.format, document = excluded.document`,
    );
    const putTool = this.db.prepare(
      `INSERT INTO tools (id, name, description, category, format, api_id, method, path, ` +
        `has_response_schema, has_examples, record)
       VALUES (@id, @name, @description, @category, @format, @api_id, @method, @path, ` +
        `@has_response_schema, @has_examples, @record)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, description = excluded.description, ` +
        `category = excluded.category,
       format = excluded.format, api_id = excluded.api_id, method = excluded.method, path = excluded.path,
       has_response_schema = excluded.has_response_schema, has_examples = excluded.has_examples, ` +
        `record = excluded.record`,
    );
    this.db.transaction(() => {
      for (const api of batch.apis) putApi.run(apiRow(api));
      for (const tool of batch.tools) putTool.run(toolRow(tool));
    })();
    this.parsed.clear();
    this.idList = undefined;
    this.countedGroups = undefined;
  }

  /** Removes every tool and API (a rebuild starts from an empty library). */
  clear(): void {
    this.db.exec('DELETE FROM tools; DELETE FROM apis;');
    this.parsed.clear();
    this.idList = undefined;
    this.countedGroups = undefined;
  }

  count(): number {
    const sql = this.storedCounts
      ? 'SELECT coalesce(sum(n), 0) AS n FROM tool_counts'
      : 'SELECT count(*) AS n FROM tools';
    return this.db.prepare<[], { n: number }>(sql).get()!.n;
  }

  /** Whether the library holds a tool with this id, without parsing its record. */
  has(id: string): boolean {
    return this.parsed.has(id) || this.hasRecord.get(id) !== undefined;
  }

  get(id: string): Tool | undefined {
    const hit = this.parsed.get(id);
    if (hit) return hit;
    const row = this.getRecord.get(id);
    if (!row) return undefined;
    const tool = JSON.parse(row.record) as Tool;
    this.parsed.set(id, tool);
    return tool;
  }

  /** Every tool id in library order; read once, on first use. */
  ids(): readonly string[] {
    this.idList ??= this.db
      .prepare<[], { id: string }>('SELECT id FROM tools ORDER BY seq')
      .pluck()
      .all() as unknown as string[];
    return this.idList;
  }

  list(query: ListQuery = {}): { tools: ToolSummary[]; next_cursor: string | null } {
    const limit = Math.max(1, Math.min(query.limit ?? 50, 1000));
    const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
    const where = ['seq > @after'];
    if (query.category !== undefined) where.push('category = @category');
    if (query.q) where.push("(id LIKE @q ESCAPE '\\' OR name LIKE @q ESCAPE '\\' OR description LIKE @q ESCAPE '\\')");
    const rows = this.db
      .prepare<Record<string, unknown>, ToolSummary & { seq: number }>(
        `SELECT seq, id, name, description, category FROM tools WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit`,
      )
      .all({
        after,
        category: query.category,
        q: query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined,
        limit: limit + 1,
      });
    const page = rows.slice(0, limit);
    const next_cursor = rows.length > limit ? encodeCursor(page[page.length - 1]!.seq) : null;
    return { tools: page.map(({ seq: _seq, ...summary }) => summary), next_cursor };
  }

  /**
   * A digest of every tool's id, name, description, category and record size, in library order: any import or
   * rebuild that changes a searchable field changes it. octet_length() lets SQLite skip reading the records.
   * Derived indexes (retrieval) record it to tell whether they are stale.
   */
  fingerprint(): string {
    const hash = createHash('sha256');
    const rows = this.db
      .prepare<[], [string, string, string, string, number]>(
        'SELECT id, name, description, category, octet_length(record) FROM tools ORDER BY seq',
      )
      .raw()
      .iterate();
    for (const [id, name, description, category, size] of rows)
      hash.update(`${id}\u0000${name}\u0000${description}\u0000${category}\u0000${size}\u0001`);
    return hash.digest('hex').slice(0, 32);
  }

  /** Every full record in library order (of one category, of one origin format), parsed one at a time. */
  *iterate(filter: { category?: string; format?: OriginFormat } = {}): IterableIterator<Tool> {
    const where = [
      ...(filter.category === undefined ? [] : ['category = ?']),
      ...(filter.format === undefined ? [] : ['format = ?']),
    ];
    const stmt = this.db.prepare<unknown[], { record: string }>(
      `SELECT record FROM tools${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`,
    );
    const rows = stmt.iterate(...[filter.category, filter.format].filter((value) => value !== undefined));
    for (const row of rows) yield JSON.parse(row.record) as Tool;
  }

  /** The OpenAPI tools whose records keep examples, with their API, in library order: no record is read. */
  exampleTools(): { id: string; api_id: string }[] {
    return this.db
      .prepare<[], { id: string; api_id: string }>(
        "SELECT id, api_id FROM tools WHERE has_examples = 1 AND format = 'openapi' ORDER BY seq",
      )
      .all();
  }

  api(apiId: string): Omit<ApiRecord, 'document'> | undefined {
    return this.db
      .prepare<[string], Omit<ApiRecord, 'document'>>(
        'SELECT api_id, title, provider, category, format FROM apis WHERE api_id = ?',
      )
      .get(apiId);
  }

  /** Every API in api_id order, without documents. */
  apis(): Omit<ApiRecord, 'document'>[] {
    return this.db
      .prepare<[], Omit<ApiRecord, 'document'>>(
        'SELECT api_id, title, provider, category, format FROM apis ORDER BY api_id',
      )
      .all();
  }

  /** The API's source document, decompressed and parsed on each call: callers cache what they need. */
  apiDocument(apiId: string): unknown {
    const row = this.db
      .prepare<[string], { document: Buffer | null }>('SELECT document FROM apis WHERE api_id = ?')
      .get(apiId);
    return row?.document ? JSON.parse(gunzipSync(row.document).toString('utf8')) : undefined;
  }

  /** The REST operations of one API: enough to route a request without parsing any record. */
  apiOperations(apiId: string): { id: string; method: string; path: string }[] {
    return this.db
      .prepare<[string], { id: string; method: string; path: string }>(
        'SELECT id, method, path FROM tools WHERE api_id = ? AND method IS NOT NULL AND path IS NOT NULL ORDER BY seq',
      )
      .all(apiId);
  }

  /** Tools, APIs, categories (most tools first), formats (by name), coverage and build info. */
  stats(): LibraryStats {
    const categories = new Map<string, number>();
    const formats = new Map<string, number>();
    let tools = 0;
    let withResponseSchema = 0;
    let withExamples = 0;
    for (const group of this.countGroups()) {
      tools += group.n;
      categories.set(group.category, (categories.get(group.category) ?? 0) + group.n);
      formats.set(group.format, (formats.get(group.format) ?? 0) + group.n);
      if (group.has_response_schema) withResponseSchema += group.n;
      if (group.has_examples) withExamples += group.n;
    }
    const build = this.meta('build');
    return {
      tools,
      apis: this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM apis').get()!.n,
      categories: [...categories]
        .map(([category, n]) => ({ category, tools: n }))
        .sort((a, b) => b.tools - a.tools || byText(a.category, b.category)),
      formats: Object.fromEntries([...formats].sort(([a], [b]) => byText(a, b))),
      with_response_schema: withResponseSchema,
      with_examples: withExamples,
      build: build ? (JSON.parse(build) as Record<string, unknown>) : null,
    };
  }

  /** The stored counts; for a library without them, one scan of the tools table, kept until the next write. */
  private countGroups(): CountGroup[] {
    if (this.storedCounts)
      return this.db
        .prepare<[], CountGroup>('SELECT category, format, has_response_schema, has_examples, n FROM tool_counts')
        .all();
    this.countedGroups ??= this.db.prepare<[], CountGroup>(COUNT_GROUPS).all();
    return this.countedGroups;
  }
}

function hasTable(db: Database.Database, name: string): boolean {
  return (
    db
      .prepare<[string], { found: number }>("SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = ?")
      .get(name) !== undefined
  );
}

/** Code-unit order: what SQLite's BINARY collation gives for the ASCII names categories and formats are. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function apiRow(api: ApiRecord) {
  return {
    api_id: api.api_id,
    title: api.title,
    provider: api.provider,
    category: api.category,
    format: api.format,
    document: api.document === undefined ? null : gzipSync(JSON.stringify(api.document), { level: 6 }),
  };
}

function toolRow(tool: Tool) {
  const openapi = tool.origin.format === 'openapi' ? tool.origin : undefined;
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    format: tool.origin.format,
    api_id: openapi?.api_id ?? null,
    method: openapi?.method ?? null,
    path: openapi?.path ?? null,
    has_response_schema: tool.response_schema === undefined ? 0 : 1,
    has_examples: tool.examples.length > 0 ? 1 : 0,
    record: JSON.stringify(tool),
  };
}

function encodeCursor(seq: number): string {
  return String(seq);
}

/**
 * A page cursor's number: a library-order page's is the last seq it held, a ranked page's its end in the ranking.
 * Any such number reads as some page, so the document can say what a cursor is (up to 15 digits, a safe integer).
 */
export function decodeCursor(cursor: string): number {
  if (!/^\d{1,15}$/.test(cursor)) throw new LibraryError(`invalid cursor ${JSON.stringify(cursor)}`);
  return Number(cursor);
}
