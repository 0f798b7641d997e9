import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizedScoreFusion, reciprocalRankFusion } from '../../src/retrieval/fuse.js';

const lexical = [
  { doc: 1, score: 12 },
  { doc: 2, score: 11 },
  { doc: 3, score: 2 },
];
const dense = [
  { doc: 3, score: 0.9 },
  { doc: 2, score: 0.8 },
  { doc: 4, score: 0.1 },
];

test('reciprocal rank fusion rewards documents both lists rank well', () => {
  const fused = reciprocalRankFusion([lexical, dense], 4);
  assert.deepEqual(fused.map((s) => s.doc), [2, 3, 1, 4]);
  assert.ok(Math.abs(fused[0]!.score - (1 / 62 + 1 / 62)) < 1e-12);
});

test('rank fusion weights tilt the result toward one list', () => {
  assert.deepEqual(reciprocalRankFusion([lexical, dense], 2, { weights: [3, 1] }).map((s) => s.doc), [1, 2]);
  assert.deepEqual(reciprocalRankFusion([lexical, dense], 1, { weights: [0, 1] }).map((s) => s.doc), [3]);
});

test('normalized score fusion keeps score gaps that ranks lose', () => {
  // doc 1 and 2 are nearly tied lexically, so dense decides between them; doc 3 is far behind lexically.
  const fused = normalizedScoreFusion([lexical, dense], 3);
  assert.deepEqual(fused.map((s) => s.doc), [2, 3, 1]);
  assert.deepEqual(normalizedScoreFusion([[], dense], 1).map((s) => s.doc), [3]);
});
