import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedQueue, ResponderBusyError } from '../../src/simulator/queue.js';

/** A task that runs until `release()` is called. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { task: () => done, release };
}

test('the queue runs up to `concurrency` tasks, queues `maxWaiting` more, and refuses the next as busy', async () => {
  const queue = new BoundedQueue({ name: 'test model', concurrency: 2, maxWaiting: 1 });
  const gates = [gate(), gate(), gate()];
  const started: number[] = [];
  const runs = gates.map((g, i) =>
    queue.run(() => {
      started.push(i);
      return g.task();
    }),
  );
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  assert.equal(queue.running, 2);
  assert.equal(queue.waiting, 1);

  await assert.rejects(
    queue.run(() => Promise.resolve()),
    (error: unknown) =>
      error instanceof ResponderBusyError && error.retryAfterSeconds >= 1 && /test model is busy/.test(error.message),
  );

  gates[0]!.release();
  await runs[0];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [0, 1, 2], 'the waiting task takes the freed slot');
  gates[1]!.release();
  gates[2]!.release();
  await Promise.all(runs);
  assert.equal(queue.running, 0);
  assert.equal(queue.waiting, 0);
  assert.equal(await queue.run(() => Promise.resolve('after')), 'after', 'a drained queue takes work again');
});

test('a waiting task whose signal aborts leaves the queue without running', async () => {
  const queue = new BoundedQueue({ name: 'q', concurrency: 1, maxWaiting: 4 });
  const blocker = gate();
  const first = queue.run(blocker.task);
  const controller = new AbortController();
  let ran = false;
  const second = queue.run(async () => {
    ran = true;
  }, controller.signal);
  assert.equal(queue.waiting, 1);
  controller.abort(new Error('deadline'));
  await assert.rejects(second, /deadline/);
  assert.equal(queue.waiting, 0);
  blocker.release();
  await first;
  assert.equal(ran, false);
  assert.equal(queue.running, 0);
});

test('a failing task frees its slot', async () => {
  const queue = new BoundedQueue({ name: 'q', concurrency: 1, maxWaiting: 0 });
  await assert.rejects(
    queue.run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(queue.running, 0);
  assert.equal(await queue.run(() => Promise.resolve(1)), 1);
});

test('bad sizes are refused', () => {
  assert.throws(() => new BoundedQueue({ name: 'q', concurrency: 0, maxWaiting: 1 }), /concurrency/);
  assert.throws(() => new BoundedQueue({ name: 'q', concurrency: 1, maxWaiting: -1 }), /maxWaiting/);
});
