/** `toolenv search bench` and the dense index report on a fixture library with a tiny ONNX model. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from './fixture.js';
import { writeTinyModel } from './tiny-model.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

function toolenv(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
}

function json(args: string[]): Record<string, unknown> {
  const run = toolenv([...args, '--json']);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
}

function fixture() {
  const model = join(tempDir('toolenv-model-'), 'tiny-bert');
  writeTinyModel(model);
  return { library: writeRetrievalLibrary(), model };
}

test('search index reports the CPU time of a dense build beside its wall time', () => {
  const { library, model } = fixture();
  const report = json(['search', 'index', '--library', library, '--retriever', 'dense', '--embed-model', model]);
  const dense = (report.indexes as { retriever: string; built: boolean; seconds: number; cpu_seconds: number }[])[1]!;
  assert.equal(dense.retriever, 'dense');
  assert.equal(dense.built, true);
  assert.ok(dense.cpu_seconds > 0, `cpu_seconds ${dense.cpu_seconds}`);
});

test('search bench --embed-sample: the cost per passage of a fixed sample, and the whole library projected', () => {
  const { library, model } = fixture();
  const report = json(['search', 'bench', '--library', library, '--embed-model', model, '--embed-sample', '5']);
  // 12 tools, every 2nd one from the first.
  assert.equal(report.tools, 12);
  assert.equal(report.step, 2);
  assert.equal(report.passages, 6);
  assert.equal(report.model, 'onnx-tiny-bert');
  const cpu = report.cpu_ms_per_passage as number;
  assert.ok(cpu > 0);
  assert.equal(report.library_cpu_min, Math.round((cpu * 12) / 6000) / 10);
  assert.equal((report.loadavg_1m as number[]).length, 2);
});

test('search bench --retriever hybrid times the fused search, and reads the vectors the index command built', () => {
  const { library, model } = fixture();
  const before = toolenv(['search', 'bench', '--library', library, '--retriever', 'hybrid', '--embed-model', model]);
  assert.equal(before.status, 2);
  assert.match(before.stderr, /build it with `toolenv search index --library .* --retriever dense --embed-model/);
  json(['search', 'index', '--library', library, '--retriever', 'dense', '--embed-model', model]);
  const bm25 = json(['search', 'bench', '--library', library, '--count', '10']);
  const hybrid = json([
    ...['search', 'bench', '--library', library, '--count', '10'],
    ...['--retriever', 'hybrid', '--embed-model', model],
  ]);
  assert.equal(hybrid.retriever, 'hybrid');
  assert.equal(hybrid.queries, bm25.queries, 'the same queries as BM25');
  assert.ok((hybrid.search_p95_ms as number) >= (hybrid.search_p50_ms as number));
  // Embedding a query and scanning the vectors cost CPU that BM25's lookup does not.
  assert.ok((hybrid.search_cpu_ms as number) > (bm25.search_cpu_ms as number), JSON.stringify([hybrid, bm25]));
  assert.ok((hybrid.batch8_cpu_ms as number) > 0);
});

test('search bench: bad input is one line and exit 2', () => {
  const { library } = fixture();
  for (const [args, message] of [
    [['--embed-sample', '5'], /--embed-sample needs --embed-model DIR/],
    [['--retriever', 'use'], /search bench times bm25, dense or hybrid, not use/],
  ] as const) {
    const run = toolenv(['search', 'bench', '--library', library, ...args]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  }
});
