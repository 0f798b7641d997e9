/** Long CLI jobs with stderr piped (a log file, CI): progress comes as `toolenv: STAGE done/total` lines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { writeRetrievalLibrary } from './fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

/** Runs the CLI with stderr a pipe and a progress line for every update, as a 10 s interval gives a long job. */
function toolenv(args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TOOLENV_DEBUG: '', TOOLENV_PROGRESS_SECONDS: '0' },
  });
  assert.equal(run.status, 0, run.stderr);
  return run;
}

const stages = (stderr: string) => [
  ...new Set([...stderr.matchAll(/^toolenv: (.+?) \d+\/\d+ \w+ \(\d+%, \d+ s\)$/gm)].map((m) => m[1]!)),
];

test('search index, the first search that loads the index, and search eval write progress lines', () => {
  const library = writeRetrievalLibrary();
  assert.deepEqual(stages(toolenv(['search', 'index', '--library', library]).stderr), [
    'bm25',
    'bm25 postings',
    'bm25 write',
  ]);
  const search = toolenv(['search', '--library', library, 'add a pet']);
  assert.deepEqual(stages(search.stderr), ['bm25 load']);
  assert.match(search.stdout, /petstore_test__addPet/);
  assert.deepEqual(stages(toolenv(['search', 'eval', '--library', library, '--size', '2']).stderr), [
    'bm25',
    'bm25 postings',
    'rank bm25',
  ]);
});

test('graph build writes a progress line for each stage, the rules step by step', () => {
  const library = writeRetrievalLibrary();
  const { stderr } = toolenv(['graph', 'build', '--library', library, '--json']);
  assert.deepEqual(stages(stderr), ['tools', 'links', 'rules', 'write']);
  assert.ok((stderr.match(/^toolenv: rules /gm) ?? []).length >= 10, stderr);
});
