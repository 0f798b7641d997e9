import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizedScoreFusion, reciprocalRankFusion } from '../../src/retrieval/fuse.js';

const lexical = [
  { doc: 1, score: 12 },
  { doc: 2, score: 11 },
  { doc: 3, score: 2 },
];
const dense = [
  { doc: 2, score: 0.9 },
  { doc: 4, score: 0.8 },
  { doc: 5, score: 0.1 },
];

test('reciprocal rank fusion puts the document both lists found first, then by rank', () => {
  const fused = reciprocalRankFusion([lexical, dense], 5);
  assert.deepEqual(
    fused.map((s) => s.doc),
    [2, 1, 4, 3, 5],
  );
  assert.ok(Math.abs(fused[0]!.score - (1 / 62 + 1 / 61)) < 1e-12);
});

test('rank fusion with one list weighted out is that list', () => {
  assert.deepEqual(
    reciprocalRankFusion([lexical, dense], 3, { weights: [1, 0] }).map((s) => s.doc),
    [1, 2, 3],
  );
  assert.deepEqual(
    reciprocalRankFusion([lexical, dense], 3, { weights: [0, 1] }).map((s) => s.doc),
    [2, 4, 5],
  );
});

test('normalized score fusion keeps score gaps that ranks lose', () => {
  // Lexically, docs 1 and 2 are nearly tied and doc 3 far behind: doc 4, second in the dense list, beats doc 3.
  const fused = normalizedScoreFusion([lexical, dense], 5);
  assert.deepEqual(
    fused.map((s) => s.doc),
    [2, 1, 4, 3, 5],
  );
  assert.ok(Math.abs(fused[0]!.score - 1.9) < 1e-9);
  assert.deepEqual(
    normalizedScoreFusion([[], dense], 1).map((s) => s.doc),
    [2],
  );
});
