/** `serve --embed-model`: POST /v1/search with the dense retriever, its vectors built by the command its 409 names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { writeTinyModel } from '../retrieval/tiny-model.js';
import { expectProblem, postJson, searchWhenBuilt, startTestServer } from './helpers.js';

const run = promisify(execFile);

test(
  'a server given --embed-model answers dense searches ' + 'once the command its 409 names has built the vectors',
  async (t) => {
    const library = writeRetrievalLibrary();
    const model = join(tempDir('toolenv-model-'), 'tiny-bert');
    writeTinyModel(model);
    const server = await startTestServer({ library, retrieval: { embedModel: model } });
    t.after(() => server.close());
    assert.equal((await searchWhenBuilt(server.url, { query: 'weather' })).status, 200);

    const refused = await expectProblem(
      await postJson(`${server.url}/v1/search`, { query: 'will it rain tomorrow', retriever: 'dense' }),
      409,
    );
    const command = String(refused.command);
    assert.ok(command.endsWith(`--retriever dense --embed-model ${model}`), command);

    // The command exactly as the problem gives it (the paths are temporary directories, without spaces).
    const [bin, ...args] = command.split(' ');
    assert.equal(bin, 'toolenv');
    await run(process.execPath, [join(packageRoot, 'bin', 'toolenv'), ...args], {
      env: { ...process.env, TOOLENV_DEBUG: '' },
    });

    // "rain" is in no tool's text: only the model knows it is about weather.
    const answered = await postJson(`${server.url}/v1/search`, {
      query: 'will it rain tomorrow',
      retriever: 'dense',
      k: 1,
    });
    assert.equal(answered.status, 200);
    const body = (await answered.json()) as { results: { id: string }[] };
    assert.equal(body.results[0]!.id, 'weather_forecast');
    const hybrid = (await (
      await postJson(`${server.url}/v1/search`, { query: 'delete pet', retriever: 'hybrid', k: 1 })
    ).json()) as { results: { id: string }[] };
    assert.equal(hybrid.results[0]!.id, 'petstore_test__deletePet');
  },
);

test('serve --embed-model with a directory that holds no model exits 2 before listening', async () => {
  const empty = tempDir('toolenv-model-');
  const refused = await run(process.execPath, [
    join(packageRoot, 'bin', 'toolenv'),
    'serve',
    '--library',
    writeRetrievalLibrary(),
    '--port',
    '0',
    '--embed-model',
    empty,
  ]).then(
    () => assert.fail('serve started'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--embed-model: .* is not a model directory: config\.json is missing/);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
});
