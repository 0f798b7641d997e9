import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LibraryStore, LibraryError } from '../../src/library/store.js';
import { petstoreTools, writeFixtureLibrary, tempDir } from '../fixtures/tools.js';

test('a written library opens read-only and reads records lazily by id', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  assert.equal(store.count(), petstoreTools.length);
  assert.deepEqual(store.get('petstore_test__getPetById'), petstoreTools[2]);
  assert.equal(store.get('nope'), undefined);
  assert.equal(store.has('petstore_test__addPet'), true);
  assert.equal(store.has('nope'), false);
  assert.deepEqual(store.ids(), petstoreTools.map((t) => t.id));
  assert.deepEqual(store.apiOperations('petstore.test').map((o) => o.id), petstoreTools.slice(0, 4).map((t) => t.id));
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
  assert.deepEqual(store.list({ category: 'weather' }).tools.map((t) => t.id), ['weather_forecast']);
  assert.deepEqual(store.list({ q: 'BY id' }).tools.map((t) => t.id), ['petstore_test__getPetById']);
  assert.deepEqual(store.list({ q: '%' }).tools, []);
  assert.throws(() => store.list({ cursor: '!!' }), LibraryError);
  store.close();
});

test('stats count tools, categories and coverage', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  const stats = store.stats();
  assert.equal(stats.tools, 5);
  assert.equal(stats.apis, 1);
  assert.deepEqual(stats.categories, [{ category: 'ecommerce', tools: 4 }, { category: 'weather', tools: 1 }]);
  assert.equal(stats.with_response_schema, 3);
  assert.equal(stats.with_examples, 1);
  store.close();
});

test('opening a missing library names the directory', () => {
  const dir = tempDir();
  assert.throws(() => LibraryStore.open(dir), (e: Error) => e instanceof LibraryError && e.message.includes(dir));
});
