import pg from 'pg';

/**
 * The PostgreSQL response cache's tables and the statements that need more than one line: what `PostgresCache`
 * (cache-postgres.ts) runs, apart from how it runs them.
 */

export const SCHEMA_VERSION = '1';
/** The channel that tells waiting processes a claimed call was settled (payload: the key in hex). */
const SETTLED_CHANNEL = 'toolenv_cache_settled';
/** The channel that tells every process to drop its in-memory rows (an import replaced entries). */
export const RESET_CHANNEL = 'toolenv_cache_reset';
/** Serializes the schema's creation: replicas starting at once would otherwise race on CREATE TABLE. */
const SCHEMA_LOCK = 7_305_736_291;

const DDL =
  `
CREATE TABLE IF NOT EXISTS toolenv_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS toolenv_responses (
  id bigserial PRIMARY KEY,
  key bytea NOT NULL UNIQUE,
  tool text NOT NULL,
  args text NOT NULL,
  status integer NOT NULL,
  body text NOT NULL,
  source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_hit_at timestamptz,
  hits bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS toolenv_responses_tool ON toolenv_responses (tool, id);
CREATE UNLOGGED TABLE IF NOT EXISTS toolenv_pending (key bytea PRIMARY KEY, ` +
  `owner text NOT NULL, expires_at timestamptz NOT NULL);
`;

/**
 * The stored answer, or else a claim on the call, in one round trip. The claim takes a free key or one whose
 * claimer's lease ran out. The hit and the claim read one snapshot, so an answer committed meanwhile can still be
 * claimed again: `fill` then finds the first answer and serves that one.
 */
export const CLAIM =
  `
WITH hit AS (SELECT id, status, body, source FROM toolenv_responses WHERE key = $1),
claim AS (
  INSERT INTO toolenv_pending (key, owner, expires_at)
  SELECT $1, $2, now() + $3 * interval '1 millisecond' WHERE NOT EXISTS (SELECT 1 FROM hit)
  ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at ` +
  `WHERE toolenv_pending.expires_at < now()
  RETURNING 1
)
SELECT hit.id, hit.status, hit.body, hit.source, (SELECT count(*) FROM claim)::int AS claimed ` +
  `FROM (SELECT 1) AS one LEFT JOIN hit ON true`;

/** The claimer's answer stored, its claim dropped and the waiters told, in one statement. */
export const FILL = `
WITH stored AS (
  INSERT INTO toolenv_responses (key, tool, args, status, body, source) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (key) DO NOTHING RETURNING id
),
released AS (DELETE FROM toolenv_pending WHERE key = $1 AND owner = $7)
SELECT (SELECT id FROM stored) AS id, pg_notify('${SETTLED_CHANNEL}', $8)`;

export const RELEASE =
  'WITH released AS (DELETE FROM toolenv_pending WHERE key = $1 AND owner = $2) SELECT ' +
  `pg_notify('${SETTLED_CHANNEL}', $3)`;

/** A connection that listens on both channels. */
export async function listen(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  // Errors before the caller's handlers are on would end the process; the caller sees them as a failed connect.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(`LISTEN ${SETTLED_CHANNEL}; LISTEN ${RESET_CHANNEL}`);
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}

export async function createSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(DDL);
    await client.query(
      "INSERT INTO toolenv_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING",
      [SCHEMA_VERSION],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function readVersion(pool: pg.Pool): Promise<string | undefined> {
  const {
    rows: [table],
  } = await pool.query<{ name: string | null }>("SELECT to_regclass('toolenv_meta')::text AS name");
  if (!table?.name) return undefined;
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM toolenv_meta WHERE key = 'schema_version'");
  return rows[0]?.value ?? 'none';
}

export async function insertBatch(
  client: pg.PoolClient,
  rows: unknown[][],
  replace: boolean,
): Promise<{ inserted: number; replaced: number }> {
  const column = (i: number) => rows.map((row) => row[i]);
  const conflict = replace
    ? 'DO UPDATE SET status = EXCLUDED.status, body = EXCLUDED.body, source = EXCLUDED.source, ' +
      'created_at = EXCLUDED.created_at'
    : 'DO NOTHING';
  const { rows: written } = await client.query<{ inserted: boolean }>(
    `INSERT INTO toolenv_responses (key, tool, args, status, body, source, created_at, last_hit_at, hits)
     SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::int[], ` +
      `$5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[], $9::bigint[])
     ON CONFLICT (key) ${conflict} RETURNING (xmax = 0) AS inserted`,
    [0, 1, 2, 3, 4, 5, 6, 7, 8].map(column),
  );
  const inserted = written.filter((row) => row.inserted).length;
  return { inserted, replaced: written.length - inserted };
}
