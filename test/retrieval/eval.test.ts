import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LibraryStore } from '../../src/library/store.js';
import { evaluate, makeBenchmark } from '../../src/retrieval/eval.js';
import { gist, paraphrase, plainText, rng } from '../../src/retrieval/eval-queries.js';
import { computeMetrics } from '../../src/retrieval/metrics.js';
import { writeRetrievalLibrary } from './fixture.js';

test('metrics: recall, NDCG and MRR on hand-checked rankings', () => {
  const m = computeMetrics(
    [
      ['a', 'b', 'c'],
      ['x', 'y', 'z', 'q'],
      ['b', 'x', 'y', 'a'],
    ],
    [['a'], ['q'], ['a', 'b']],
  );
  assert.equal(m.queries, 3);
  assert.equal(m.recall_1, Math.round(((1 + 0 + 0.5) / 3) * 1e4) / 1e4);
  assert.equal(m.recall_3, Math.round(((1 + 0 + 0.5) / 3) * 1e4) / 1e4);
  assert.equal(m.recall_10, 1);
  assert.equal(m.mrr_10, Math.round(((1 + 1 / 4 + 1) / 3) * 1e4) / 1e4);
  // Second query: one hit at rank 4. Third: hits at ranks 1 and 4, where the ideal has them at 1 and 2.
  const second = 1 / Math.log2(5);
  const third = (1 + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
  assert.equal(m.ndcg_10, Math.round(((1 + second + third) / 3) * 1e4) / 1e4);
});

test('query writing strips markup, keeps the first clause and rewords it', () => {
  assert.equal(
    plainText('Get a **user** by [id](https://x.y). See <b>docs</b> at https://example.com'),
    'Get a user by id. See docs at',
  );
  assert.equal(gist('Returns the user profile. Requires auth.'), 'Returns the user profile');
  const random = rng(3);
  const q = paraphrase('Returns the user profile', 'Example API', random, { mentionApi: 0 });
  assert.notEqual(q, 'Returns the user profile');
  assert.doesNotMatch(q, /Example API/);
  assert.match(q, /profile/);
});

test('the benchmark is deterministic for a seed and never asks with a tool text verbatim', () => {
  const dir = writeRetrievalLibrary();
  const store = LibraryStore.open(dir);
  const a = makeBenchmark(store, { size: 3, seed: 5 });
  const b = makeBenchmark(store, { size: 3, seed: 5 });
  assert.deepEqual(a, b);
  assert.ok(a.queries.length >= 6);
  for (const q of a.queries) {
    const tool = store.get(q.relevant[0]!)!;
    assert.notEqual(q.query, tool.description);
    assert.notEqual(q.query, tool.name);
  }
  for (const id of a.withheld) assert.equal(a.queries.find((q) => q.relevant.includes(id))?.set, 'heldout');
  store.close();
});

test('evaluate reports per-set metrics for BM25 on a small library', async () => {
  const report = await evaluate(writeRetrievalLibrary(), { retrievers: ['bm25'], size: 3, seed: 2 });
  assert.equal(report.tools, 12);
  assert.equal(report.results.length, 1);
  const [bm25] = report.results;
  assert.equal(bm25!.retriever, 'bm25');
  assert.equal(bm25!.overall.queries, report.queries.paraphrase + report.queries.heldout + report.queries.multi);
  assert.ok(bm25!.overall.recall_10 > 0.5, JSON.stringify(bm25));
  assert.ok(bm25!.overall.recall_10 >= bm25!.overall.recall_3 && bm25!.overall.recall_3 >= bm25!.overall.recall_1);
});
