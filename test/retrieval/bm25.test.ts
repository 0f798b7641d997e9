import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Builder, DEFAULT_BM25_PARAMS, queryTerms } from '../../src/retrieval/bm25.js';
import { toolFields, type FieldTexts } from '../../src/retrieval/documents.js';
import { ToolSearch, SearchError } from '../../src/retrieval/searcher.js';
import { TopK } from '../../src/retrieval/topk.js';
import { retrievalTools, writeRetrievalLibrary } from './fixture.js';

const empty: FieldTexts = { name: '', operation: '', api: '', description: '', params: '', category: '' };

test('the right tool comes first for clear queries', async () => {
  const search = ToolSearch.open(writeRetrievalLibrary());
  const cases: [string, string][] = [
    ['delete a pet from the store', 'petstore_test__deletePet'],
    ['add a new pet', 'petstore_test__addPet'],
    ['find a pet by its id', 'petstore_test__getPetById'],
    ['weather forecast for Paris', 'weather_forecast'],
    ['send an email', 'sendEmail'],
    ['exchange rate: convert dollars to another currency', 'convert_currency'],
    ['latitude and longitude of an address', 'geocodeAddress'],
    ['stock price of a ticker', 'stock-quote'],
  ];
  const results = await search.search(
    cases.map(([q]) => q),
    { k: 3 },
  );
  cases.forEach(([query, id], i) =>
    assert.equal(results[i]![0]?.id, id, `${query} → ${results[i]!.map((r) => r.id).join(', ')}`),
  );
  await search.close();
});

test('results carry id, name, score, category and origin, best first', () => {
  const search = ToolSearch.open(writeRetrievalLibrary());
  const [results] = search.searchBm25(['pet'], { k: 10 });
  assert.ok(results!.length >= 4);
  for (const r of results!) assert.deepEqual(Object.keys(r), ['id', 'name', 'score', 'category', 'origin']);
  for (let i = 1; i < results!.length; i++) assert.ok(results![i - 1]!.score >= results![i]!.score);
  assert.equal(results![0]!.origin.format, 'openapi');
});

test('category filter keeps only that category and names an unknown one', () => {
  const search = ToolSearch.open(writeRetrievalLibrary());
  const [weather] = search.searchBm25(['city'], { k: 10, category: 'weather' });
  assert.deepEqual(weather!.map((r) => r.id).sort(), ['air_quality', 'weather_forecast']);
  assert.throws(
    () => search.searchBm25(['city'], { category: 'wether' }),
    (e: unknown) => e instanceof SearchError && /unknown category "wether".*weather/.test(e.message),
  );
});

test('bad k and non-string queries are named', () => {
  const search = ToolSearch.open(writeRetrievalLibrary());
  assert.throws(() => search.searchBm25(['pet'], { k: 0 }), /k must be an integer between 1 and 1000, got 0/);
  assert.throws(() => search.searchBm25([42 as unknown as string]), /query 0 must be a string, got number/);
  assert.deepEqual(search.searchBm25(['the of and', '']), [[], []]);
});

test('a name match outweighs the same word in a long description', () => {
  const builder = new Bm25Builder();
  builder.add({ ...empty, name: 'invoice', description: 'other words here' });
  builder.add({
    ...empty,
    name: 'report',
    description: 'a report that mentions an invoice among many other words of text',
  });
  const index = builder.finish(DEFAULT_BM25_PARAMS);
  assert.deepEqual(
    index.search(queryTerms('invoice'), 2).map((s) => s.doc),
    [0, 1],
  );
});

test('rarer terms weigh more (idf) and missing terms score nothing', () => {
  const builder = new Bm25Builder();
  for (let i = 0; i < 8; i++) builder.add({ ...empty, description: `user account ${i}` });
  builder.add({ ...empty, description: 'user avatar' });
  const index = builder.finish();
  assert.equal(index.search(queryTerms('user avatar'), 1)[0]!.doc, 8);
  assert.deepEqual(index.search(queryTerms('nonexistentword'), 3), []);
});

test('tool fields: operation id, path words, API name and parameter names are searchable', () => {
  const fields = toolFields(retrievalTools.find((t) => t.id === 'petstore_test__getPetById')!, 'Petstore');
  assert.equal(fields.api, 'Petstore');
  assert.match(fields.operation, /getPetById get +\/pets\/ petId/);
  assert.equal(fields.params, 'petId X-Request-Id');
});

test('TopK keeps the k best, ties to the lower document', () => {
  const top = new TopK(3);
  [5, 1, 9, 9, 3, 7].forEach((score, doc) => top.push(doc, score));
  assert.deepEqual(top.result(), [
    { doc: 2, score: 9 },
    { doc: 3, score: 9 },
    { doc: 5, score: 7 },
  ]);
});
