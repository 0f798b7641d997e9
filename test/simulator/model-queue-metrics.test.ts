import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModelResponder, type Generation } from '../../src/simulator/model-responder.js';
import { BoundedQueue } from '../../src/simulator/queue.js';
import { petstoreTools } from '../fixtures/tools.js';

test("the model's queue is on /metrics: what generates, what waits, and the bounds", async () => {
  const queue = new BoundedQueue({ name: 'test model', concurrency: 1, maxWaiting: 4 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const generation: Generation = {
    text: '{"id": 1, "name": "Rex"}',
    promptTokens: 1,
    completionTokens: 1,
    truncated: false,
  };
  const responder = createModelResponder({
    generator: {
      label: 'test',
      queue,
      ready: async () => {},
      countTokens: (text) => text.length,
      generate: () =>
        queue.run(async () => {
          await held;
          return generation;
        }),
    },
  });
  const tool = petstoreTools.find((t) => t.id === 'petstore_test__getPetById')!;
  const calls = [
    responder.respond(tool, { petId: 1 }, { seed: 0 }),
    responder.respond(tool, { petId: 2 }, { seed: 0 }),
  ];
  await new Promise((resolve) => setImmediate(resolve));
  const gauges = (text: string) =>
    Object.fromEntries([...text.matchAll(/^toolenv_model_queue_(\w+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  assert.deepEqual(gauges(responder.toPrometheus()), { running: 1, waiting: 1, concurrency: 1, max_waiting: 4 });
  release();
  await Promise.all(calls);
  assert.deepEqual(gauges(responder.toPrometheus()), { running: 0, waiting: 0, concurrency: 1, max_waiting: 4 });
  const withoutQueue = createModelResponder({
    generator: { label: 'bare', ready: async () => {}, countTokens: (t) => t.length, generate: async () => generation },
  });
  assert.doesNotMatch(withoutQueue.toPrometheus(), /toolenv_model_queue_/);
});
