import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

/**
 * Preloaded into the server: every module it loads, ES (a hook on the loader's thread) or CommonJS (`require`, which
 * `lazyRequire` uses), is appended to the file TOOLENV_TEST_LOADED names.
 */
const RECORDER = `
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
const file = process.env.TOOLENV_TEST_LOADED;
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  export async function load(url, context, next) {
    appendFileSync(\${JSON.stringify(file)}, url + '\\\\n');
    return next(url, context);
  }\`));
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  appendFileSync(file, Module._resolveFilename(request, parent, isMain) + '\\n');
  return loaded;
};
`;

/** What a start leaves to the first request that needs it: packages by their folder, own modules by their path. */
const LAZY = [
  '/node_modules/qs/',
  '/node_modules/yaml/',
  '/node_modules/ws/',
  '/node_modules/ajv/',
  '/node_modules/ajv-formats/',
  '/node_modules/randexp/',
  '/node_modules/ret/',
  '/node_modules/re2js/',
  '/dist/src/rl/judge.js',
  '/dist/src/rl/rewards.js',
  '/dist/src/simulator/upstream/upstream.js',
  '/dist/src/protocol/session.js',
  '/dist/src/chat/session.js',
  '/dist/src/tasks/synth/default-tasks.js',
  '/dist/src/studio/runs.js',
];

describe('serve: what a start loads', () => {
  const work = tempDir('toolenv-startup-');
  const loadedFile = join(work, 'loaded.txt');
  const recorder = join(work, 'recorder.mjs');
  let url = '';
  let stop = () => {};
  const loaded = () => readFileSync(loadedFile, 'utf8').split('\n');

  before(async () => {
    writeFileSync(recorder, RECORDER);
    writeFileSync(loadedFile, '');
    const child = spawn(
      process.execPath,
      [
        '--import',
        recorder,
        join(packageRoot, 'bin/toolenv'),
        'serve',
        '--port',
        '0',
        '--library',
        writeFixtureLibrary(),
        '--cache',
        join(work, 'cache.db'),
        '--error-rate',
        '0',
        '--json',
      ],
      { env: { ...process.env, TOOLENV_TEST_LOADED: loadedFile }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    stop = () => child.kill('SIGTERM');
    let stdout = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve((JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { url: string }).url);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening`)));
    });
  });
  after(() => stop());

  it('answers /healthz without loading what only other requests need', async () => {
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const modules = loaded();
    assert.ok(
      modules.some((m) => m.includes('/dist/src/server/serve.js')),
      'the recorder saw the server load',
    );
    for (const lazy of LAZY)
      assert.equal(
        modules.find((m) => m.includes(lazy)),
        undefined,
        `${lazy} was loaded at start`,
      );
  });

  it('documents the lazily served routes all the same, and loads ajv with the first validated call', async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const path of ['/v1/runs', '/v1/episodes/{id}/turns', '/openenv/reset', '/apis/{api_id}/{path}'])
      assert.ok(path in document.paths, `${path} is documented`);
    const call = await fetch(`${url}/v1/tools/petstore_test__listPets/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: { limit: 0 } }),
    });
    // limit: 0 breaks the schema's minimum: only ajv's validator can tell.
    assert.equal(call.status, 400, await call.text());
    assert.ok(loaded().some((m) => m.includes('/node_modules/ajv/')));
  });
});
