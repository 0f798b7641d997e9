import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { LibraryStore } from '../../src/library/store.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { untouchedBodyText } from '../../src/simulator/stored-result.js';
import { synthesize } from '../../src/simulator/synth/index.js';
import { threadedSynthResponder } from '../../src/simulator/synth/threaded.js';
import { petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const getPet = petstoreTools.find((tool) => tool.id === 'petstore_test__getPetById')!;

test(
  'the synthesis thread answers what synthesize answers, ' + 'byte for byte, with the body as its JSON text',
  async () => {
    const synth = threadedSynthResponder(writeFixtureLibrary());
    try {
      // Several calls of one turn of the event loop travel in one message; each gets its own answer.
      const calls = [1, 2, 3, 4].map((petId) => synth.respond(getPet, { petId }, { seed: 7 }));
      const answers = await Promise.all(calls);
      answers.forEach((answer, i) => {
        const expected = synthesize(getPet, { petId: i + 1 }, 7);
        assert.equal(answer!.status, expected.status);
        assert.equal(untouchedBodyText(answer!), JSON.stringify(expected.body));
        assert.deepEqual(answer!.body, expected.body);
      });
    } finally {
      await synth.close();
    }
  },
);

test('a tool the thread cannot find fails the call, and the thread keeps answering', async () => {
  const synth = threadedSynthResponder(writeFixtureLibrary());
  try {
    await assert.rejects(
      synth.respond({ ...getPet, id: 'nowhere__tool' }, {}, { seed: 0 }),
      /the library has no tool nowhere__tool/,
    );
    assert.equal(
      untouchedBodyText((await synth.respond(getPet, { petId: 9 }, { seed: 0 }))!),
      JSON.stringify(synthesize(getPet, { petId: 9 }, 0).body),
    );
  } finally {
    await synth.close();
  }
});

test('a fresh call through the pipeline is written back and answered as the stored text, unparsed', async () => {
  const library = writeFixtureLibrary();
  const store = LibraryStore.open(library);
  const cache = ResponseCache.open(join(tempDir(), 'cache.db'));
  const synth = threadedSynthResponder(library);
  try {
    const simulator = createSimulator({ store, cache, responders: [synth], errorRate: 0, seed: 3 });
    const fresh = await simulator.call(getPet.id, { petId: 11 });
    const expected = JSON.stringify(synthesize(getPet, { petId: 11 }, 3).body);
    assert.equal(fresh.source, 'synth');
    assert.equal(untouchedBodyText(fresh), expected);
    assert.equal(cache.getText(getPet.id, { petId: 11 })?.text, expected);
    const again = await simulator.call(getPet.id, { petId: 11 });
    assert.equal(again.source, 'cache');
    assert.equal(untouchedBodyText(again), expected);
  } finally {
    await synth.close();
    cache.close();
    store.close();
  }
});

test('a thread that dies fails the calls it held, and the next call starts another', async () => {
  const synth = threadedSynthResponder(join(tempDir(), 'no-library'));
  try {
    await assert.rejects(synth.respond(getPet, { petId: 1 }, { seed: 0 }), /no-library/);
    await assert.rejects(synth.respond(getPet, { petId: 2 }, { seed: 0 }), /no-library/);
  } finally {
    await synth.close();
  }
});
