import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshArguments } from '../../src/bench/fresh-arguments.js';
import { runRolloutBench, WORKLOADS } from '../../src/bench/rollouts.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

// The rollout bench in miniature: every workload drives its episodes (or plain calls) through a real server and a
// real load generator process, and the report says what answered. No speed is asserted; what can fail is the
// bench breaking, or an episode action answered wrongly.
test(
  'toolenv bench --rollouts runs JSON steps, text turns and the plain call, ' + 'cached and fresh, and reports each',
  async () => {
    const lines: string[] = [];
    const report = await runRolloutBench({
      library: writeFixtureLibrary(),
      episodes: [4, 5],
      connections: 4,
      steps: 2,
      actionsPerStep: 3,
      durationSeconds: 1,
      rounds: 2,
      log: (line) => lines.push(line),
    });
    assert.equal(report.tool, 'petstore_test__getPetById');
    assert.deepEqual([report.steps, report.actions_per_step, report.rounds], [2, 3, 2]);
    assert.ok(report.idle_rss_mb > 0);
    const [scale, interleaved] = report.scales;
    assert.equal(report.scales.length, 2);
    assert.equal(scale!.episodes, 4);
    assert.equal(scale!.connections, 4);
    assert.deepEqual(Object.keys(scale!.workloads), [...WORKLOADS]);
    for (const name of WORKLOADS) {
      const row = scale!.workloads[name];
      assert.equal(row.failures, 0, `${name}: ${row.failure_samples.join('; ')}`);
      assert.ok(row.calls_per_s > 0 && row.actions_per_s >= row.calls_per_s, name);
      assert.ok(row.step_p50_ms > 0 && row.step_p99_ms >= row.step_p50_ms, name);
      assert.ok(row.generator_us_per_request > 0 && row.server_us_per_action! > 0, name);
      assert.equal(scale!.rounds_actions_per_s[name].length, 2, name);
      assert.equal(row.actions_per_s, Math.max(...scale!.rounds_actions_per_s[name]), name);
      if (name.startsWith('call')) continue;
      // Every connection left its episode live after the window, every step of it taken, for the RSS reading.
      assert.equal(row.live_episodes, 4, name);
      assert.ok(row.rss_mb! > 0, name);
    }
    // Cached arguments are answered from the cache, fresh ones by the synthesizer, plainly and inside episodes.
    for (const name of ['call', 'step'] as const)
      assert.deepEqual(Object.keys(scale!.workloads[name].sources), ['cache'], name);
    for (const name of ['call_fresh', 'step_fresh'] as const)
      assert.deepEqual(Object.keys(scale!.workloads[name].sources), ['synth'], name);
    assert.ok(
      scale!.workloads.turns.actions_per_s > scale!.workloads.turns.calls_per_s,
      'the search turns count as actions',
    );
    assert.equal(
      scale!.step_vs_call,
      Math.round((scale!.workloads.step.actions_per_s / scale!.workloads.call.actions_per_s) * 100) / 100,
    );
    assert.ok(scale!.fresh_step_vs_cached > 0 && scale!.rss_live_mb > 0);
    assert.match(lines.join('\n'), /4 episodes, round 2 of 2: turns_fresh/);
    // Five episodes over four connections: one connection interleaves two, and all five are live at the end.
    assert.equal(interleaved!.connections, 4);
    for (const name of WORKLOADS) {
      const row = interleaved!.workloads[name];
      assert.equal(row.failures, 0, `${name}: ${row.failure_samples.join('; ')}`);
      if (!name.startsWith('call')) assert.equal(row.live_episodes, 5, name);
      assert.ok(row.gc_share !== undefined && row.gc_share >= 0 && row.gc_share < 1, name);
    }
    assert.ok(interleaved!.heap_live_mb > 0 && interleaved!.rss_per_episode_kib !== 0);
  },
);

test('fresh arguments differ for every number and keep each character in its class', () => {
  const args = { id: 'ab12', nested: { code: 'Z9' }, count: 3 };
  const seen = new Set<string>();
  for (let n = 0; n < 2000; n++) {
    const fresh = freshArguments(args, n * 7919);
    const { id, nested } = fresh as typeof args;
    assert.match(id, /^[a-z]{2}\d{2}$/);
    assert.match(nested.code, /^[A-Z]\d$/);
    seen.add(JSON.stringify(fresh));
  }
  assert.equal(seen.size, 2000);
  assert.throws(() => freshArguments({ flag: true, name: '-' }, 1), /too few letters and digits/);
});
