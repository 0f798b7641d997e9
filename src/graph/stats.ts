/** The graph's summary table (the paper's Figure 3a) and a little more, computed by SQL over the stored edges. */
import type Database from 'better-sqlite3';

export interface GraphStats {
  tools: number;
  tools_with_dependency: number;
  edges: number;
  hard: number;
  soft: number;
  /** Distinct unordered pairs {a, b} joined by at least one edge. */
  unordered_pairs: number;
  /** Pairs with an edge in each direction. */
  bidirectional_pairs: number;
  /** edges / tools_with_dependency, as the paper reports it (147,503 / 33,020 = 4.47). */
  mean_out_degree_connected: number;
  max_out_degree: number;
  max_out_degree_tool: string | null;
  max_in_degree: number;
  max_in_degree_tool: string | null;
  /** Edges whose two tools belong to different APIs. */
  cross_api_edges: number;
  by_rule: Record<string, { hard: number; soft: number }>;
}

export function graphStats(db: Database.Database): GraphStats {
  const count = (sql: string) => db.prepare<[], { n: number }>(sql).get()!.n;
  const tools = count('SELECT count(*) AS n FROM nodes');
  const withDependency = count('SELECT count(*) AS n FROM (SELECT src AS id FROM edges UNION SELECT dst FROM edges)');
  const by_rule: GraphStats['by_rule'] = {};
  let hard = 0;
  let soft = 0;
  for (const row of db
    .prepare<[], { rule: string; kind: string; n: number }>(
      'SELECT rule, kind, count(*) AS n FROM edges GROUP BY rule, kind',
    )
    .all()) {
    const entry = (by_rule[row.rule] ??= { hard: 0, soft: 0 });
    if (row.kind === 'hard') {
      entry.hard += row.n;
      hard += row.n;
    } else {
      entry.soft += row.n;
      soft += row.n;
    }
  }
  const edges = hard + soft;
  const bidirectional = count(
    'SELECT count(*) AS n FROM edges e WHERE e.src < e.dst AND EXISTS ' +
      '(SELECT 1 FROM edges r WHERE r.src = e.dst AND r.dst = e.src)',
  );
  const top = (column: 'src' | 'dst') =>
    db
      .prepare<[], { id: string; n: number }>(
        `SELECT ${column} AS id, count(*) AS n FROM edges GROUP BY ${column} ORDER BY n DESC, id LIMIT 1`,
      )
      .get();
  const out = top('src');
  const into = top('dst');
  return {
    tools,
    tools_with_dependency: withDependency,
    edges,
    hard,
    soft,
    unordered_pairs: edges - bidirectional,
    bidirectional_pairs: bidirectional,
    mean_out_degree_connected: withDependency === 0 ? 0 : Math.round((edges / withDependency) * 100) / 100,
    max_out_degree: out?.n ?? 0,
    max_out_degree_tool: out?.id ?? null,
    max_in_degree: into?.n ?? 0,
    max_in_degree_tool: into?.id ?? null,
    cross_api_edges: count(
      'SELECT count(*) AS n FROM edges e JOIN nodes a ON a.id ' +
        '= e.src JOIN nodes b ON b.id = e.dst WHERE a.api <> b.api',
    ),
    by_rule,
  };
}
