import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLayers, kahnLayers, type DagNode } from '../../src/protocol/dag.js';

const nodes = (edges: Record<string, string[]>): DagNode[] => Object.entries(edges).map(([id, deps]) => ({ id, deps }));

test('Kahn layering: independent calls share the first layer, a chain takes one layer per call', () => {
  assert.deepEqual(kahnLayers(nodes({ a: [], b: [], c: [] })), { ok: true, layers: [['a', 'b', 'c']] });
  assert.deepEqual(kahnLayers(nodes({ a: [], b: ['a'], c: ['b'], d: ['c'] })), {
    ok: true,
    layers: [['a'], ['b'], ['c'], ['d']],
  });
  assert.deepEqual(kahnLayers([]), { ok: true, layers: [] });
});

test('Kahn layering of a diamond and of a wider DAG: each layer is every node whose dependencies ran before', () => {
  assert.deepEqual(kahnLayers(nodes({ top: [], left: ['top'], right: ['top'], bottom: ['left', 'right'] })), {
    ok: true,
    layers: [['top'], ['left', 'right'], ['bottom']],
  });
  // Given order is kept inside a layer; a node waits for its deepest dependency.
  assert.deepEqual(kahnLayers(nodes({ e: ['a', 'd'], a: [], d: ['c'], c: [], b: ['a'] })), {
    ok: true,
    layers: [['a', 'c'], ['d', 'b'], ['e']],
  });
  // Repeated edges count once.
  assert.deepEqual(kahnLayers(nodes({ a: [], b: ['a', 'a'] })), { ok: true, layers: [['a'], ['b']] });
});

test('a cycle is reported as a path from a node back to itself, in data-flow order', () => {
  const two = kahnLayers(nodes({ a: ['b'], b: ['a'] }));
  assert.equal(two.ok, false);
  if (!two.ok) assert.ok(['a,b,a', 'b,a,b'].includes(two.cycle.join(',')), two.cycle.join(' → '));
  const self = kahnLayers(nodes({ a: [], b: ['b'] }));
  assert.deepEqual(self, { ok: false, cycle: ['b', 'b'] });
  // A node merely downstream of a cycle is not part of the reported cycle.
  const tail = kahnLayers(nodes({ x: [], a: ['x', 'c'], b: ['a'], c: ['b'], z: ['c'] }));
  assert.equal(tail.ok, false);
  if (!tail.ok) {
    assert.equal(tail.cycle.length, 4);
    assert.equal(tail.cycle[0], tail.cycle[3]);
    assert.deepEqual(new Set(tail.cycle), new Set(['a', 'b', 'c']));
  }
});

test('a layering the model wrote is checked: coverage, duplicates, unknown ids, dependencies in earlier layers', () => {
  const dag = nodes({ a: [], b: ['a'], c: [] });
  assert.deepEqual(checkLayers(dag, [['a', 'c'], ['b']]), []);
  assert.deepEqual(checkLayers(dag, [['a'], ['c'], ['b']]), [], 'a valid but not maximal layering is accepted');
  assert.deepEqual(checkLayers(dag, [['a', 'b', 'c']]), [
    'layers: b (layer 1) depends on a, which runs in the same layer',
  ]);
  assert.deepEqual(checkLayers(dag, [['b', 'c'], ['a']]), [
    'layers: b (layer 1) depends on a, which runs later (layer 2)',
  ]);
  assert.deepEqual(checkLayers(dag, [['a', 'q'], ['b']]), [
    'layers: layer 1 names q, which is not a call of the plan',
    'layers: c is in no layer',
  ]);
  assert.deepEqual(
    checkLayers(dag, [
      ['a', 'c'],
      ['b', 'a'],
    ]),
    ['layers: a appears in layer 1 and again in layer 2'],
  );
});
