import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

function call(args: string[]) {
  const library = writeFixtureLibrary();
  const cache = join(tempDir('toolenv-call-'), 'responses.db');
  return spawnSync(process.execPath, [BIN, 'call', ...args, '--library', library, '--cache', cache], {
    encoding: 'utf8',
    env: { ...process.env, TOOLENV_DEBUG: '' },
  });
}

test('call: a refused call exits 2 with the problem in one stderr line; the answer is still printed', () => {
  const unknown = call(['nope_tool', '--json']);
  assert.equal(unknown.status, 2, unknown.stderr);
  assert.match(unknown.stderr, /^toolenv: 404 Unknown tool: no tool with id "nope_tool"[^\n]*\n$/);
  assert.equal((JSON.parse(unknown.stdout) as { status: number }).status, 404);

  const invalid = call(['petstore_test__getPetById', '--args', '{"petId": "seven"}']);
  assert.equal(invalid.status, 2);
  assert.match(invalid.stderr, /^toolenv: 400 Invalid arguments: \/petId must be integer\n$/);
  assert.match(invalid.stdout, /^status {2}400$/m);

  const hallucinated = call(['petstore_test__getPetById', '--args', '{"petId": 1, "bogus": 1}', '--error-rate', '0']);
  assert.equal(hallucinated.status, 2);
  assert.match(hallucinated.stderr, /Unknown arguments: unknown argument "bogus"/);
});

test('call: answers, injected errors and forced codes exit 0; the rule modes are flags', () => {
  assert.equal(call(['petstore_test__getPetById', '--args', '{"petId": 1}', '--error-rate', '0']).status, 0);
  const injected = call(['petstore_test__getPetById', '--args', '{"petId": 1}', '--error-rate', '1', '--json']);
  assert.equal(injected.status, 0, injected.stderr);
  assert.notEqual((JSON.parse(injected.stdout) as { error: string | null }).error, null);
  assert.equal(call(['petstore_test__getPetById', '--args', '{"petId": 1}', '--code', '404']).status, 0);

  const lax = call([
    'petstore_test__getPetById',
    '--args',
    '{"petId": "1", "bogus": 1}',
    '--error-rate',
    '0',
    '--coercion',
    'lax',
    '--unknown-arguments',
    'ignore',
    '--json',
  ]);
  assert.equal(lax.status, 0, lax.stderr);
  const answer = JSON.parse(lax.stdout) as { status: number; headers: Record<string, string> };
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['x-toolenv-coerced'], '/petId string->integer');
  assert.equal(answer.headers['x-toolenv-ignored'], 'bogus');

  const bad = call(['petstore_test__getPetById', '--coercion', 'loose']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^toolenv: --coercion must be one of strict, lax, got "loose"\n$/);
});
