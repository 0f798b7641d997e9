import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { LibraryStore } from '../../src/library/store.js';
import { bm25File, catalogFile } from '../../src/retrieval/index-paths.js';
import { readIndexFile, writeIndexFile } from '../../src/retrieval/index-file.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { tempDir } from '../fixtures/tools.js';
import { extraTools, writeRetrievalLibrary } from './fixture.js';

const queries = ['delete pet', 'weather forecast', 'send email', 'currency exchange', 'pets'];

test('index files round-trip: a second process-like open loads them and answers the same', async () => {
  const dir = writeRetrievalLibrary();
  const first = ToolSearch.open(dir);
  const built = first.searchBm25(queries, { k: 5 });
  assert.ok(existsSync(bm25File(dir)) && existsSync(catalogFile(dir)));
  const mtime = statSync(bm25File(dir)).mtimeMs;

  const second = ToolSearch.open(dir, { autoBuild: false });
  assert.deepEqual(second.searchBm25(queries, { k: 5 }), built);
  assert.equal(statSync(bm25File(dir)).mtimeMs, mtime, 'a current index is loaded, not rebuilt');
  const [report] = await second.index('bm25');
  assert.equal(report!.built, false);
  assert.equal(report!.tools, 12);
});

test('a changed library makes the index stale: rebuilt on use, or an error without autoBuild', () => {
  const dir = writeRetrievalLibrary();
  ToolSearch.open(dir).searchBm25(['pet']);
  const store = LibraryStore.openWritable(dir);
  store.write({
    apis: [],
    tools: [{ ...extraTools[0]!, id: 'sendFax', name: 'sendFax', description: 'Send a fax to a phone number.' }],
  });
  store.close();

  assert.throws(
    () => ToolSearch.open(dir, { autoBuild: false }).searchBm25(['fax']),
    /bm25 index is missing or stale; build it with `toolenv search index --library .* --retriever bm25`/,
  );
  const [results] = ToolSearch.open(dir).searchBm25(['fax']);
  assert.equal(results![0]!.id, 'sendFax');
});

test('a damaged index file is rebuilt rather than trusted', () => {
  const dir = writeRetrievalLibrary();
  ToolSearch.open(dir).searchBm25(['pet']);
  const whole = readFileSync(bm25File(dir));
  writeFileSync(bm25File(dir), 'not an index');
  assert.equal(ToolSearch.open(dir).searchBm25(['delete pet'])[0]![0]!.id, 'petstore_test__deletePet');
  assert.equal(readFileSync(bm25File(dir)).subarray(0, 8).toString('latin1'), 'TOOLENVX');

  // A current header over a cut-off body.
  writeFileSync(bm25File(dir), whole.subarray(0, whole.length - 16));
  assert.equal(ToolSearch.open(dir).searchBm25(['delete pet'])[0]![0]!.id, 'petstore_test__deletePet');
  assert.equal(readFileSync(bm25File(dir)).length, whole.length);
});

test('index file sections round-trip with their types', () => {
  const file = `${tempDir()}/x.idx`;
  const sections = {
    text: 'héllo\nwörld',
    f: Float32Array.of(1.5, -2),
    u: Uint32Array.of(7, 2 ** 32 - 1),
    h: Uint16Array.of(3),
    b: Uint8Array.of(1, 2, 3),
  };
  writeIndexFile(file, { kind: 'test', n: 1 }, sections);
  const read = readIndexFile<{ kind: string; n: number }>(file);
  assert.deepEqual(read.header, { kind: 'test', n: 1 });
  assert.deepEqual(read.sections, sections);
});
