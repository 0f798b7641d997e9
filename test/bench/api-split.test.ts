/** The split every learning benchmark reads: evaluated tasks on APIs no training task touches, dev apart from test. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitByApi, type PoolTask } from '../../src/bench/learner-tasks.js';

/** 400 tasks over 80 APIs, one or two APIs each. */
function pool(): PoolTask[] {
  return Array.from({ length: 400 }, (_, i) => {
    const apis = i % 3 === 0 ? [`api${i % 80}`, `api${(i * 7) % 80}`] : [`api${i % 80}`];
    return {
      task: { id: `t${i}`, query: `task ${i}`, reference_tools: apis.map((a) => `${a}_op`) },
      line: i + 1,
      mapping: [],
      seed: 0,
      apis: [...new Set(apis)],
    };
  });
}

const apisOf = (tasks: readonly PoolTask[]) => new Set(tasks.flatMap((t) => t.apis));

test('dev and test tasks lie on disjoint sides, and neither shares an API with training', () => {
  const tasks = pool();
  const test_ = splitByApi(tasks, 3, 20, { devShare: 0.2, on: 'test' });
  const dev = splitByApi(tasks, 3, 20, { devShare: 0.2, on: 'dev' });
  assert.equal(test_.heldOut.length, 20);
  assert.equal(dev.heldOut.length, 20);
  assert.deepEqual(
    test_.train.map((t) => t.task.id),
    dev.train.map((t) => t.task.id),
    'the side read does not change what trains',
  );
  const trained = apisOf(test_.train);
  for (const side of [test_, dev]) {
    assert.equal(side.heldOutApisSeenInTraining, 0);
    assert.ok([...apisOf(side.heldOut)].every((api) => !trained.has(api)));
  }
  const devApis = apisOf(dev.heldOut);
  assert.ok(
    [...apisOf(test_.heldOut)].every((api) => !devApis.has(api)),
    'no API is both dev and test',
  );
});

test('without a dev side the split is the reference learner’s: half the APIs tested, the rest trained', () => {
  const tasks = pool();
  const plain = splitByApi(tasks, 3, 20);
  const noDev = splitByApi(tasks, 3, 20, { devShare: 0, on: 'test' });
  assert.deepEqual(plain, noDev);
  const withDev = splitByApi(tasks, 3, 20, { devShare: 0.2 });
  assert.deepEqual(
    withDev.heldOut.map((t) => t.task.id),
    plain.heldOut.map((t) => t.task.id),
    'a dev side takes from training only',
  );
  assert.ok(withDev.train.length < plain.train.length);
});

test('a pool too small for the side asked says how to grow it', () => {
  assert.throws(() => splitByApi(pool().slice(0, 10), 3, 50, { on: 'dev', devShare: 0.2 }), /dev tasks .*larger pool/);
});
