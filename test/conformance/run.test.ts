/**
 * `toolenv conformance` on a small library served for real: every request case sent over HTTP, every answer held to
 * the served document, figures that would fail if the REST surface answered outside it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { runConformance, type ConformanceReport } from '../../src/conformance/run.js';
import { DocumentChecker } from '../../src/conformance/check.js';
import { packageRoot } from '../../src/paths.js';
import { importMediaDocument, mediaDocument } from '../fixtures/media-document.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

describe('toolenv conformance', () => {
  let library: string;
  let report: ConformanceReport;
  before(async () => {
    const batch = await importMediaDocument();
    library = writeFixtureLibrary(batch.tools, batch.apis);
    report = await runConformance({ library, sample: 5, seed: 3, operations: 50 });
  });

  it('measures every operation of the sampled API, each figure with its interval and n', () => {
    assert.equal(report.sample, 1);
    assert.equal(report.apis[0]!.api_id, 'media.example');
    const { overall } = report;
    assert.equal(overall.operations, 12);
    assert.equal(overall.server_errors, 0);
    // A valid request per operation, and one per documented success type asked for by Accept.
    assert.ok(overall.valid_accepted.n > 12);
    assert.equal(overall.valid_accepted.rate, 1, JSON.stringify(report.failures));
    assert.equal(overall.accept_honoured.rate, 1, JSON.stringify(report.failures));
    assert.ok(overall.accept_honoured.n >= 10);
    assert.equal(overall.unacceptable_answered.rate, 1, JSON.stringify(report.failures));
    assert.ok(overall.unacceptable_answered.n >= 10);
    // Missing required parameters and bodies, words for numbers, integers past int64: all refused.
    assert.deepEqual(Object.keys(overall.refused_by_case), [
      'missing-body',
      'missing-required',
      'past-int64',
      'wrong-type',
    ]);
    assert.equal(overall.invalid_refused.rate, 1, JSON.stringify(report.failures));
    assert.equal(overall.media_documented.rate, 1, JSON.stringify(report.failures));
    assert.equal(overall.valid_answers.rate, 1, JSON.stringify(report.failures));
    assert.ok(overall.valid_answers.n > 0);
    assert.ok(overall.valid_answers.low! < 1);
    // /search declares no 4xx: its refusal is counted apart, undeclared.
    assert.ok(overall.statuses_declared_apart.n > overall.statuses_declared_apart.hits);
  });

  it('the checker fails what the document does not allow', () => {
    const checker = new DocumentChecker(mediaDocument);
    const xml = checker.check('/pets/{id}', 'get', 200, 'text/html', '<p/>');
    assert.equal(xml.mediaDocumented, false);
    const wrong = checker.check('/pets/{id}', 'get', 200, 'application/json', '{"id":"seven"}');
    assert.equal(wrong.valid, false);
    assert.match(wrong.errors ?? '', /must be integer/);
    assert.equal(checker.check('/pets/{id}', 'get', 200, 'application/json', '{"id":7}').valid, true);
    const undeclared = checker.check('/search', 'get', 400, 'application/problem+json', '{}');
    assert.deepEqual([undeclared.declared, undeclared.noClientErrors], [false, true]);
  });

  it('--sample 0 is a usage error: one line, exit 2', () => {
    const run = spawnSync(
      process.execPath,
      [join(packageRoot, 'bin', 'toolenv'), 'conformance', '--library', library, '--sample', '0'],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 2);
    assert.equal(run.stderr.trim().split('\n').length, 1);
  });
});
