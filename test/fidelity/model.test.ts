/**
 * `toolenv fidelity --responder llama` as the user runs it (bin/toolenv, real node-llama-cpp) on the petstore fixture
 * library: with the tiny random-weight GGUF always, with the real small model of `npm run setup:model` where it is
 * on disk (skipped otherwise, unless TOOLENV_REQUIRE_MODEL=1, where its absence is a failure).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { FidelityReport } from '../../src/fidelity/run.js';
import { packageRoot } from '../../src/paths.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { tinyModelFile } from '../simulator/llama-fixture.js';

const run = promisify(execFile);
const BIN = join(packageRoot, 'bin', 'toolenv');
const SMALL_MODEL = join(packageRoot, 'models', 'gemma-3-270m-q4_k_m.gguf');

function smallModelSkip(): string | false {
  if (existsSync(SMALL_MODEL)) return false;
  if (process.env.TOOLENV_REQUIRE_MODEL === '1')
    throw new Error(`TOOLENV_REQUIRE_MODEL=1 but ${SMALL_MODEL} is missing (npm run setup:model)`);
  return `${SMALL_MODEL} is missing (npm run setup:model): the small-model fidelity test is skipped`;
}

async function fidelity(model: string, ...flags: string[]): Promise<FidelityReport> {
  const args = [
    BIN,
    'fidelity',
    '--library',
    writeFixtureLibrary(),
    '--responder',
    'llama',
    '--model',
    model,
    '--gpu',
    'cpu',
    '--threads',
    '1',
    '--parallel',
    '1',
    '--ctx',
    '2048',
    '--json',
    ...flags,
  ];
  const { stdout } = await run(process.execPath, args, {
    env: { ...process.env, TOOLENV_DEBUG: '' },
    maxBuffer: 16 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as FidelityReport;
}

/**
 * What holds whatever the model writes: every call asked of it is answered by it or by the synthesizer, and each answer
 * is scored by its source.
 */
function assertModelScored(report: FidelityReport): void {
  assert.deepEqual(report.responders, ['model', 'synth']);
  const model = report.model!;
  assert.ok(model.calls >= 1, 'the model was asked');
  assert.equal(model.answered + model.fallbacks, model.calls);
  assert.equal(report.by_source.model.answers, model.answered);
  assert.equal(
    report.by_source.model.answers + report.by_source.synth.answers,
    report.tools.valid_requests - report.tools.unanswered,
  );
  assert.equal(report.latency.model.calls, model.answered);
  assert.ok(model.completion_tokens > 0 && model.tokens_per_s !== null && model.tokens_per_s > 0);
  // The synthesizer answered the very calls the model answered, scored apart.
  const same = report.same_calls!;
  assert.equal(same.baseline, 'synth');
  assert.equal(same.calls, model.answered);
  assert.equal(same.model.scores.answers, same.calls);
  assert.equal(same.other.scores.answers, same.calls);
  assert.equal(same.other.latency.calls, same.calls);
}

test(
  'fidelity --responder llama with the tiny GGUF: model answers are scored, and the synthesizer answers the same ' +
    'calls',
  async () => {
    const report = await fidelity(tinyModelFile(), '--max-tokens', '200');
    assertModelScored(report);
    // Under the grammar even random weights write bodies the response schema accepts.
    assert.ok(report.by_source.model.answers >= 1, JSON.stringify(report.model));
    assert.equal(report.by_source.model.schema_validity.rate, 1);
    assert.equal(report.same_calls!.model.scores.schema_validity.rate, 1);
  },
);

test('fidelity --responder llama with the small model of npm run setup:model', { skip: smallModelSkip() }, async () => {
  const report = await fidelity(SMALL_MODEL, '--max-tokens', '256', '--sample', '3');
  assertModelScored(report);
  assert.ok(report.model!.errors === 0, report.model!.last_error);
});
