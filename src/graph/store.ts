/**
 * G_dep on disk: `graph.db` beside the library's `tools.db`, one row per directed edge, indexed both ways. A build
 * writes a fresh file and renames it into place, so readers never see half a graph and a failed build loses nothing.
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LibraryError } from '../library/store.js';
import type { Edge, EdgeKind, Rule } from './edge.js';
import { graphStats, type GraphStats } from './stats.js';

export const GRAPH_FILE = 'graph.db';
const SCHEMA_VERSION = '1';

export class GraphError extends LibraryError {}

const DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nodes (id TEXT PRIMARY KEY, api TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE edges (
  src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('hard', 'soft')), rule TEXT NOT NULL,
  score REAL NOT NULL, evidence TEXT NOT NULL, PRIMARY KEY (src, dst)
) WITHOUT ROWID;
`;

export interface GraphData {
  /** Every tool of the library with the API it belongs to, connected or not. */
  nodes: { id: string; api: string }[];
  edges: Edge[];
  meta: Record<string, string>;
}

/** Writes the graph of a library directory, replacing any previous one in a single rename. Returns the file. */
export function writeGraph(libraryDir: string, data: GraphData): string {
  const file = join(libraryDir, GRAPH_FILE);
  const temp = `${file}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(DDL);
    const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    const putNode = db.prepare('INSERT INTO nodes (id, api) VALUES (?, ?)');
    const putEdge = db.prepare(
      'INSERT INTO edges (src, dst, kind, rule, score, evidence) VALUES (@src, @dst, @kind, @rule, @score, @evidence)',
    );
    db.transaction(() => {
      putMeta.run('schema_version', SCHEMA_VERSION);
      for (const [key, value] of Object.entries(data.meta)) putMeta.run(key, value);
      for (const node of data.nodes) putNode.run(node.id, node.api);
      for (const edge of data.edges) putEdge.run(edge);
    })();
    db.exec('CREATE INDEX edges_in ON edges (dst, src)');
    // A rollback journal, not WAL: the file is replaced whole by the next build, and a stale -wal beside a new file
    // would be wrong.
    db.pragma('journal_mode = DELETE');
    db.close();
  } catch (error) {
    db.close();
    rmSync(temp, { force: true });
    throw error;
  }
  renameSync(temp, file);
  return file;
}

type EdgeRow = { src: string; dst: string; kind: EdgeKind; rule: Rule; score: number; evidence: string };

/** A built graph, opened read-only. */
export class Graph {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly outOf: Database.Statement<[string], EdgeRow>;
  private readonly inOf: Database.Statement<[string], EdgeRow>;
  private readonly node: Database.Statement<[string], { id: string }>;

  constructor(file: string) {
    this.file = file;
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    const version = this.meta('schema_version');
    if (version !== SCHEMA_VERSION) {
      this.db.close();
      throw new GraphError(
        `${file} has graph schema version ${version ?? 'none'}, ` +
          `this ToolEnv reads ${SCHEMA_VERSION}; rebuild it with \`toolenv graph build\``,
      );
    }
    const order = "ORDER BY kind = 'soft', score DESC";
    this.outOf = this.db.prepare(`SELECT src, dst, kind, rule, score, evidence FROM edges WHERE src = ? ${order}, dst`);
    this.inOf = this.db.prepare(`SELECT src, dst, kind, rule, score, evidence FROM edges WHERE dst = ? ${order}, src`);
    this.node = this.db.prepare('SELECT id FROM nodes WHERE id = ?');
  }

  /** Whether the tool was in the library when the graph was built. */
  has(id: string): boolean {
    return this.node.get(id) !== undefined;
  }

  /** The tool's edges: `in` from the tools it depends on, `out` to the tools that depend on it; hard first. */
  edgesOf(id: string): { in: Edge[]; out: Edge[] } {
    return { in: this.inOf.all(id), out: this.outOf.all(id) };
  }

  /** Every edge of one kind (task synthesis walks the hard ones), in a stable order. */
  edgesOfKind(kind: EdgeKind): Edge[] {
    return this.db
      .prepare<[EdgeKind], EdgeRow>(
        'SELECT src, dst, kind, rule, score, evidence FROM edges WHERE kind = ? ORDER BY src, dst',
      )
      .all(kind);
  }

  /** The induced subgraph: every edge whose two ends are both among `ids` (duplicates ignored). */
  subgraph(ids: Iterable<string>): Edge[] {
    const members = new Set(ids);
    const edges: Edge[] = [];
    for (const id of members) for (const edge of this.outOf.all(id)) if (members.has(edge.dst)) edges.push(edge);
    return edges;
  }

  stats(): GraphStats {
    return graphStats(this.db);
  }

  meta(key: string): string | undefined {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Opens the graph built for a library directory; a GraphError (exit 2 on the CLI) says how to build one when missing.
 */
export function openGraph(libraryDir: string): Graph {
  const file = join(libraryDir, GRAPH_FILE);
  if (!existsSync(file))
    throw new GraphError(
      `no dependency graph at ${libraryDir} (expected ${file}); build one with \`toolenv graph build\``,
    );
  return new Graph(file);
}
