import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { test } from 'node:test';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { petstoreTools } from '../fixtures/tools.js';

/**
 * ajv-formats' format table is CommonJS and read by the synthesizer's formats, so the shared require cache tells
 * whether the synthesizer's modules have been loaded (randexp no longer says it: it loads with the first pattern).
 */
const synthesizerLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.endsWith(`${sep}ajv-formats${sep}dist${sep}formats.js`),
  );

test('the synth responder loads the synthesizer on its first answer and answers as synthesize does', async () => {
  const tool = petstoreTools.find((candidate) => candidate.id === 'petstore_test__getPetById')!;
  assert.equal(synthesizerLoaded(), false);
  const first = await synthResponder.respond(tool, { petId: 3 }, { seed: 5 });
  assert.equal(synthesizerLoaded(), true);
  const { synthesize } = await import('../../src/simulator/synth/index.js');
  assert.deepEqual(first, synthesize(tool, { petId: 3 }, 5));
  assert.deepEqual(await synthResponder.respond(tool, { petId: 3 }, { seed: 5 }), first);
});
