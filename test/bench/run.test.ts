import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runBench } from '../../src/bench/run.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

// The bench itself, in miniature: every server it starts answers, and the report is built from what was measured.
// No speed is asserted (benchmarks are not timed tests); what can fail is the bench breaking.
test(
  'toolenv bench measures the ceiling, ' + 'the cached call and the REST surface in alternating rounds, best of each',
  async () => {
    const lines: string[] = [];
    const report = await runBench({
      library: writeFixtureLibrary(),
      durationSeconds: 1,
      connections: 4,
      prism: false,
      build: false,
      gpu: 'cpu',
      workers: 1,
      rounds: 2,
      log: (line) => lines.push(line),
    });
    assert.equal(report.tool, 'petstore_test__getPetById');
    assert.equal(report.rounds, 2);
    assert.deepEqual(Object.keys(report.rounds_rps).sort(), ['call', 'ceiling', 'ceiling_post']);
    for (const [name, rps] of Object.entries(report.rounds_rps)) {
      assert.equal(rps.length, 2, name);
      assert.equal(report.details[name]!.rps, Math.max(...rps), name);
    }
    for (const [name, result] of Object.entries(report.details)) {
      assert.ok(result.requests > 0, `${name} answered no request`);
      assert.equal(result.non2xx, 0, `${name} answered ${result.non2xx} requests with an error status`);
      assert.equal(result.errors, 0, name);
    }
    assert.equal(report.call_vs_ceiling, Math.round((report.call_rps / report.ceiling_rps) * 100) / 100);
    assert.equal(report.prism_rps, null);
    assert.ok(report.startup_ms > 0 && report.rss_mb > 0);
    assert.match(lines.join('\n'), /round 2 of 2: call/);
  },
);
