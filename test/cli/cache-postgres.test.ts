/** `toolenv cache stats|export|import` across SQLite and PostgreSQL, as a user moves a cache between them. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { tempDir } from '../fixtures/tools.js';
import { postgresSkip, startPostgres, type TestPostgres } from '../fixtures/postgres.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

function toolenv(args: string[]): { status: number | null; stdout: string; stderr: string } {
  // The database is its own process, so a synchronous child is fine here.
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { status, stdout, stderr };
}

function summary(args: string[]): Record<string, unknown> {
  const run = toolenv(args);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trimEnd().split('\n').pop()!) as Record<string, unknown>;
}

describe('cache export and import between SQLite and PostgreSQL', { skip: postgresSkip }, () => {
  let postgres: TestPostgres;
  before(async () => {
    postgres = await startPostgres();
  });
  after(() => postgres.stop());

  test('SQLite → PostgreSQL → SQLite keeps every entry, its times and hits; stats read the database', async () => {
    const file = join(tempDir('toolenv-cli-pg-'), 'responses.db');
    const sqlite = ResponseCache.open(file);
    sqlite.put(
      'petstore_test__getPetById',
      { petId: 7 },
      { status: 200, body: { id: 7, name: 'Rex' }, source: 'example' },
    );
    sqlite.put('petstore_test__listPets', { limit: 2 }, { status: 200, body: [{ id: 1 }], source: 'synth' });
    sqlite.put('weather_forecast', { city: 'Zürich' }, { status: 200, body: 'sunny — "mostly"', source: 'model' });
    for (let i = 0; i < 3; i++) sqlite.get('petstore_test__listPets', { limit: 2 });
    sqlite.close();

    const dir = tempDir('toolenv-cli-pg-');
    const fromSqlite = join(dir, 'sqlite.jsonl');
    summary(['cache', 'export', '--cache', file, '--out', fromSqlite, '--json']);

    const url = await postgres.database();
    assert.deepEqual(summary(['cache', 'import', fromSqlite, '--cache', url, '--json']), {
      cache: url,
      from: fromSqlite,
      format: 'jsonl',
      inserted: 3,
      replaced: 0,
      kept: 0,
    });
    assert.equal(summary(['cache', 'import', fromSqlite, '--cache', url, '--json']).kept, 3);

    const stats = summary(['cache', 'stats', '--cache', url, '--json']);
    assert.equal(stats.entries, 3);
    assert.equal(stats.hits, 3);
    assert.deepEqual(stats.by_source, { example: 1, synth: 1, model: 1 });

    const fromPostgres = join(dir, 'postgres.jsonl');
    assert.deepEqual(summary(['cache', 'export', '--cache', url, '--out', fromPostgres, '--json']), {
      cache: url,
      out: fromPostgres,
      exported: 3,
    });
    assert.equal(readFileSync(fromPostgres, 'utf8'), readFileSync(fromSqlite, 'utf8'), 'the same lines, byte for byte');

    const back = join(tempDir('toolenv-cli-pg-'), 'back.db');
    summary(['cache', 'import', fromPostgres, '--cache', back, '--json']);
    const exported = toolenv(['cache', 'export', '--cache', back]);
    assert.equal(exported.stdout, readFileSync(fromSqlite, 'utf8'));
  });

  test('a database that holds no cache, or cannot be reached, is one line and exit 2', async () => {
    const empty = await postgres.database();
    const stats = toolenv(['cache', 'stats', '--cache', empty]);
    assert.equal(stats.status, 2);
    assert.match(stats.stderr, /^toolenv: no ToolEnv response cache in postgres:\/\/[^\n]+\n$/);
    const unreachable = toolenv(['cache', 'export', '--cache', 'postgresql://u:pw@127.0.0.1:1/x']);
    assert.equal(unreachable.status, 2);
    assert.match(
      unreachable.stderr,
      /^toolenv: postgresql:\/\/u:\*\*\*@127\.0\.0\.1:1\/x is not a usable ToolEnv response cache: [^\n]*ECONNREFUSED[^\n]*\n$/,
    );
  });
});
