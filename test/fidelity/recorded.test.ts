/**
 * `toolenv fidelity --recorded`: the real answers a cache holds are scored under `real`, on their own recorded
 * arguments.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { runFidelity } from '../../src/fidelity/run.js';
import { LibraryStore } from '../../src/library/store.js';
import { packageRoot } from '../../src/paths.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const run = promisify(execFile);
const BIN = join(packageRoot, 'bin', 'toolenv');

/**
 * Recorded answers: two real 2xx ones (one off its schema), a real 404, a simulated one, one of a tool the library
 * lacks.
 */
function recordedCache(): string {
  const file = join(tempDir('toolenv-fidelity-recorded-'), 'responses.db');
  const cache = ResponseCache.open(file);
  cache.import([
    {
      tool: 'petstore_test__getPetById',
      arguments: { petId: 7 },
      status: 200,
      body: { id: 7, name: 'Real Rex', status: 'available' },
      source: 'real',
    },
    { tool: 'petstore_test__getPetById', arguments: { petId: 8 }, status: 200, body: { id: 'eight' }, source: 'real' },
    {
      tool: 'petstore_test__getPetById',
      arguments: { petId: 404 },
      status: 404,
      body: { message: 'Pet not found' },
      source: 'real',
    },
    {
      tool: 'petstore_test__getPetById',
      arguments: { petId: 9 },
      status: 200,
      body: { id: 9, name: 'Sim' },
      source: 'synth',
    },
    { tool: 'gone__tool', arguments: {}, status: 200, body: {}, source: 'real' },
  ]);
  cache.close();
  return file;
}

test(
  'recorded real answers are scored under real: schema validity ' + 'and request consistency on their own arguments',
  async () => {
    const store = LibraryStore.open(writeFixtureLibrary());
    const cache = ResponseCache.open(recordedCache(), { mode: 'read-only' });
    try {
      const plain = await runFidelity({ store, responders: [synthResponder], seed: 1 });
      assert.equal(plain.by_source.real.answers, 0);
      assert.equal(plain.tools.recorded, undefined);

      const report = await runFidelity({ store, responders: [synthResponder], seed: 1, recorded: cache.entries() });
      assert.equal(report.tools.recorded, 2);
      assert.equal(report.by_source.real.answers, 2);
      assert.deepEqual(report.by_source.real.schema_validity, { checked: 2, valid: 1, uncompiled: 0, rate: 0.5 });
      // petId 7 came back as id 7; petId 8 as "eight": the request's id addressed the resource.
      assert.equal(report.by_source.real.request_consistency.checks, 2);
      assert.equal(report.by_source.real.request_consistency.consistent, 1);
      assert.deepEqual(
        { ...report.by_source.synth },
        { ...plain.by_source.synth },
        'the simulated sources are measured as before',
      );
    } finally {
      cache.close();
      store.close();
    }
  },
);

test('fidelity --recorded CACHE reports the recorded answers; a missing cache is a usage error', async () => {
  const library = writeFixtureLibrary();
  const env = { ...process.env, TOOLENV_DEBUG: '' };
  const json = await run(
    process.execPath,
    [BIN, 'fidelity', '--library', library, '--recorded', recordedCache(), '--json'],
    { env },
  );
  const summary = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as {
    tools: { recorded: number };
    by_source: { real: { answers: number } };
  };
  assert.equal(summary.tools.recorded, 2);
  assert.equal(summary.by_source.real.answers, 2);
  await assert.rejects(
    run(process.execPath, [BIN, 'fidelity', '--library', library, '--recorded', join(tempDir(), 'none.db')], { env }),
    (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /^toolenv: --recorded: no response cache at .*none\.db\n$/);
      return true;
    },
  );
});
