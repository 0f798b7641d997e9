import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalize, VectorIndex } from '../../src/retrieval/vectors.js';

const DIM = 384;

/** Deterministic unit vectors (a linear congruential generator), so a failure replays. */
function unitVectors(count: number, seed: number): Float32Array[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: count }, () => normalize(Float32Array.from({ length: DIM }, next)));
}

/** Every dot product in double precision, sorted best first, ties to the lower row. */
function reference(rows: Float32Array[], query: Float32Array, k: number, accept = (_: number) => true) {
  return rows
    .map((row, doc) => ({ doc, score: row.reduce((sum, x, i) => sum + x * query[i]!, 0) }))
    .filter(({ doc }) => accept(doc))
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, k);
}

function index(rows: Float32Array[]): VectorIndex {
  const data = new Float32Array(rows.length * DIM);
  rows.forEach((row, i) => data.set(row, i * DIM));
  return new VectorIndex(data, DIM);
}

test('a batch of queries gets the same ranking as exact double-precision dot products', async () => {
  const rows = unitVectors(3000, 1);
  const queries = unitVectors(9, 2);
  const results = await index(rows).search(queries, 25);
  assert.equal(results.length, queries.length);
  results.forEach((got, j) => {
    const want = reference(rows, queries[j]!, 25);
    assert.deepEqual(
      got.map((s) => s.doc),
      want.map((s) => s.doc),
    );
    got.forEach((s, i) =>
      assert.ok(Math.abs(s.score - want[i]!.score) < 1e-5, `score ${s.score} vs ${want[i]!.score}`),
    );
  });
});

test('one query alone ranks as inside a batch, and a filter keeps only accepted rows', async () => {
  const rows = unitVectors(2000, 3);
  const queries = unitVectors(4, 4);
  const vectors = index(rows);
  const batch = await vectors.search(queries, 10);
  // A batch sums the products in another order than one query: scores agree to float rounding.
  for (const [j, query] of queries.entries()) {
    const [alone] = await vectors.search([query], 10);
    assert.deepEqual(
      alone!.map((s) => s.doc),
      batch[j]!.map((s) => s.doc),
    );
    alone!.forEach((s, i) => assert.ok(Math.abs(s.score - batch[j]![i]!.score) < 1e-6));
  }
  const even = (doc: number) => doc % 2 === 0;
  const [filtered] = await vectors.search([queries[0]!], 10, even);
  assert.deepEqual(
    filtered!.map((s) => s.doc),
    reference(rows, queries[0]!, 10, even).map((s) => s.doc),
  );
});

test('equal rows tie to the lower document, and k larger than the index returns every row', async () => {
  const [row, other] = unitVectors(2, 5);
  const vectors = index([other!, row!, row!, row!]);
  const [top] = await vectors.search([row!], 10);
  assert.deepEqual(
    top!.map((s) => s.doc),
    [1, 2, 3, 0],
  );
});

test('a query of the wrong dimension is refused, and no queries return no results', async () => {
  const vectors = index(unitVectors(3, 6));
  await assert.rejects(
    vectors.search([new Float32Array(DIM - 1)], 3),
    /query vector has 383 dimensions, the index 384/,
  );
  assert.deepEqual(await vectors.search([], 3), []);
});
