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
import { importSecuredDocument, securedDocument } from '../fixtures/secured-document.js';
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

/** Issue #50's bar for a conformance sample: what CI holds a small one to. */
const BAR = {
  valid_answers: 0.995,
  valid_accepted: 0.995,
  invalid_refused: 0.99,
  statuses_declared: 0.995,
  media_documented: 0.99,
} as const;

describe('toolenv conformance, with and without --security enforce', () => {
  const reports: Partial<Record<'ignore' | 'enforce', ConformanceReport>> = {};
  before(async () => {
    const batch = await importSecuredDocument();
    const library = writeFixtureLibrary(batch.tools, batch.apis);
    for (const security of ['ignore', 'enforce'] as const)
      reports[security] = await runConformance({ library, sample: 5, seed: 1, operations: 50, security });
  });

  it('meets the bar in both modes, with no server error', () => {
    for (const report of Object.values(reports)) {
      const { overall } = report;
      assert.equal(overall.operations, 12);
      assert.equal(overall.server_errors, 0);
      for (const [measure, bar] of Object.entries(BAR)) {
        const p = overall[measure as keyof typeof BAR];
        assert.ok(p.n > 0 && p.rate! >= bar, `${report.security} ${measure}: ${JSON.stringify(p)}`);
      }
      assert.deepEqual(report.failures, []);
    }
  });

  it('under enforce, every secured operation is sent without credentials and with malformed ones, refused', () => {
    const enforced = reports.enforce!.overall;
    // Nine operations need credentials; /health, /ping and /pages declare `security: []`.
    assert.deepEqual(
      enforced.refused_by_case['missing-credentials'],
      reports.enforce!.overall.refused_by_case['wrong-credentials'],
    );
    assert.equal(enforced.refused_by_case['missing-credentials']!.n, 9);
    assert.equal(enforced.refused_by_case['missing-credentials']!.rate, 1);
    assert.equal(reports.ignore!.overall.refused_by_case['missing-credentials'], undefined);
    // /audits declares a 400 and no 401 nor 403: its credential refusals are counted apart, undeclared.
    const apart = enforced.statuses_declared_apart;
    assert.ok(
      apart.n - apart.hits >=
        2 + (reports.ignore!.overall.statuses_declared_apart.n - reports.ignore!.overall.statuses_declared_apart.hits),
    );
    assert.ok(enforced.statuses_declared_any_4xx.rate! < 1);
  });

  it('the checker sorts statuses by the kind of answer the operation declares a 4xx for', () => {
    const checker = new DocumentChecker(securedDocument);
    const noCredentialStatus = checker.check('/audits', 'get', 401, 'application/json', '{}');
    assert.deepEqual([noCredentialStatus.declared, noCredentialStatus.unfit], [false, true]);
    const onlyCredentialStatus = checker.check('/files', 'get', 400, 'application/json', '{}');
    assert.deepEqual([onlyCredentialStatus.declared, onlyCredentialStatus.unfit], [false, true]);
    const declared403 = checker.check('/vaults', 'get', 403, 'application/json', '{}');
    assert.deepEqual([declared403.declared, declared403.unfit], [true, false]);
    assert.equal(checker.check('/vaults', 'get', 401, 'application/json', '{}').unfit, false);
  });
});
