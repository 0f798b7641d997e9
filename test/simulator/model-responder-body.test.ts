import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModelResponder, type Generation } from '../../src/simulator/model-responder.js';
import { petstoreTools } from '../fixtures/tools.js';

test(
  'a body with a number past the double range is invalid: ' + 'retried, never served as Infinity (null once cached)',
  async () => {
    const texts = ['{"id": 1e999, "name": "Rex"}', '{"id": 7, "name": "Rex"}'];
    const generate = async (): Promise<Generation> => ({
      text: texts.shift()!,
      promptTokens: 1,
      completionTokens: 1,
      truncated: false,
    });
    const responder = createModelResponder({
      generator: { label: 'test', ready: async () => {}, countTokens: (t) => t.length, generate },
    });
    const tool = petstoreTools.find((t) => t.id === 'petstore_test__getPetById')!;
    const answer = await responder.respond(tool, { petId: 7 }, { seed: 0 });
    assert.deepEqual(answer, { status: 200, body: { id: 7, name: 'Rex' } });
    assert.equal(responder.stats.invalid, 1);
    assert.equal(responder.stats.retries, 1);
  },
);
