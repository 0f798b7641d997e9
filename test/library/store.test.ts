import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LibraryStore, LibraryError, LIBRARY_FILE, type LibraryStats } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import { petstoreApi, petstoreTools, writeFixtureLibrary, tempDir } from '../fixtures/tools.js';

test('a written library opens read-only and reads records lazily by id', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  assert.equal(store.count(), petstoreTools.length);
  assert.deepEqual(store.get('petstore_test__getPetById'), petstoreTools[2]);
  assert.equal(store.get('nope'), undefined);
  assert.equal(store.has('petstore_test__addPet'), true);
  assert.equal(store.has('nope'), false);
  assert.deepEqual(
    store.ids(),
    petstoreTools.map((t) => t.id),
  );
  assert.deepEqual(
    store.apiOperations('petstore.test').map((o) => o.id),
    petstoreTools.slice(0, 4).map((t) => t.id),
  );
  assert.equal((store.apiDocument('petstore.test') as { openapi: string }).openapi, '3.0.3');
  store.close();
});

test('list pages with a cursor and filters by category and text', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  const first = store.list({ limit: 2 });
  assert.equal(first.tools.length, 2);
  assert.ok(first.next_cursor);
  const second = store.list({ limit: 2, cursor: first.next_cursor! });
  assert.equal(second.tools[0]!.id, petstoreTools[2]!.id);
  assert.deepEqual(
    store.list({ category: 'weather' }).tools.map((t) => t.id),
    ['weather_forecast'],
  );
  assert.deepEqual(
    store.list({ q: 'BY id' }).tools.map((t) => t.id),
    ['petstore_test__getPetById'],
  );
  assert.deepEqual(store.list({ q: '%' }).tools, []);
  assert.throws(() => store.list({ cursor: '!!' }), LibraryError);
  store.close();
});

test('stats count tools, categories and coverage', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  const stats = store.stats();
  assert.equal(stats.tools, 5);
  assert.equal(stats.apis, 1);
  assert.deepEqual(stats.categories, [
    { category: 'ecommerce', tools: 4 },
    { category: 'weather', tools: 1 },
  ]);
  assert.equal(stats.with_response_schema, 3);
  assert.equal(stats.with_examples, 1);
  store.close();
});

/** stats() as counted from the tools table itself, row by row. */
function fullCount(dir: string): Omit<LibraryStats, 'build'> {
  const db = new Database(join(dir, LIBRARY_FILE), { readonly: true });
  const n = (sql: string) => db.prepare<[], { n: number }>(sql).get()!.n;
  const formats: Record<string, number> = {};
  for (const row of db
    .prepare<[], { format: string; n: number }>('SELECT format, count(*) AS n FROM tools GROUP BY format')
    .all())
    formats[row.format] = row.n;
  const counted = {
    tools: n('SELECT count(*) AS n FROM tools'),
    apis: n('SELECT count(*) AS n FROM apis'),
    categories: db
      .prepare<[], { category: string; tools: number }>(
        'SELECT category, count(*) AS tools FROM tools GROUP BY category ORDER BY tools DESC, category',
      )
      .all(),
    formats,
    with_response_schema: n('SELECT count(*) AS n FROM tools WHERE has_response_schema = 1'),
    with_examples: n('SELECT count(*) AS n FROM tools WHERE has_examples = 1'),
  };
  db.close();
  return counted;
}

function statsOf(dir: string): Omit<LibraryStats, 'build'> & { count: number } {
  const store = LibraryStore.open(dir);
  const { build: _build, ...stats } = store.stats();
  const count = store.count();
  store.close();
  return { ...stats, count };
}

/** Replaces and adds tools so that every counted column changes for some tool. */
function rewrite(dir: string): void {
  const [listPets, addPet, getPetById] = petstoreTools;
  const changed: Tool[] = [
    { ...listPets!, category: 'weather', response_schema: undefined, examples: [{ status: 200, body: [] }] },
    { ...addPet!, origin: { format: 'mcp', name: 'add_pet' } },
    { ...getPetById!, id: 'petstore_test__getPetById_copy' },
    { ...getPetById!, id: 'extra_tool', category: 'zoo', examples: [] },
  ];
  const store = LibraryStore.openWritable(dir);
  store.write({ apis: [petstoreApi], tools: changed });
  store.close();
}

test('stats of a written library are the counts of its tools, through replacements and clearing', () => {
  const dir = writeFixtureLibrary();
  const expectCounted = () => {
    const { count, ...stats } = statsOf(dir);
    assert.deepEqual(stats, fullCount(dir));
    assert.equal(count, stats.tools);
  };
  expectCounted();
  rewrite(dir);
  const after = statsOf(dir);
  assert.equal(after.tools, 7);
  assert.deepEqual(after.formats, { mcp: 1, openai: 1, openapi: 5 });
  assert.deepEqual(after.categories, [
    { category: 'ecommerce', tools: 4 },
    { category: 'weather', tools: 2 },
    { category: 'zoo', tools: 1 },
  ]);
  expectCounted();
  const store = LibraryStore.openWritable(dir);
  store.clear();
  assert.deepEqual(store.stats(), {
    tools: 0,
    apis: 0,
    categories: [],
    formats: {},
    with_response_schema: 0,
    with_examples: 0,
    build: null,
  });
  assert.equal(store.count(), 0);
  store.close();
  expectCounted();
});

test('a library written without stored counts is counted from its tools, and gets them when next written', () => {
  const dir = writeFixtureLibrary();
  const expected = fullCount(dir);
  const db = new Database(join(dir, LIBRARY_FILE));
  db.exec(
    'DROP TRIGGER tool_counts_insert; DROP TRIGGER tool_counts_delete; DROP TRIGGER tool_counts_update; DROP ' +
      'TABLE tool_counts;',
  );
  db.close();
  const { count, ...stats } = statsOf(dir);
  assert.deepEqual(stats, expected);
  assert.equal(count, expected.tools);
  rewrite(dir);
  const rewritten = statsOf(dir);
  assert.equal(rewritten.tools, 7);
  assert.deepEqual({ ...rewritten, count: undefined }, { ...fullCount(dir), count: undefined });
});

test('opening a missing library names the directory', () => {
  const dir = tempDir();
  assert.throws(
    () => LibraryStore.open(dir),
    (e: Error) => e instanceof LibraryError && e.message.includes(dir),
  );
});
