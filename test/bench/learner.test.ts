/**
 * `bench --learning --learner linear` in small: a few tasks on the synthesis fixture library, two seeds, two steps.
 * The loop runs through a real `toolenv serve` process; the numbers are finite, the weights move, the summary line has
 * its shape, and the same seeds give the same numbers. How far it learns is the real run's to say (docs/learner.md).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import type { LearnerReport } from '../../src/learner/run-file.js';
import { tempDir } from '../fixtures/tools.js';
import { synthLibrary } from '../tasks/fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const POLICIES = ['untrained', 'trained', 'control', 'random', 'heuristic'];

function toolenv(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOOLENV_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Seeds 2 and 3 hold out one of the fixture's two APIs each (petstore, notes): both sides of a split have tasks. */
async function learn(out: string): Promise<{ summary: Record<string, unknown>; report: LearnerReport }> {
  const library = await synthLibrary();
  const { code, stdout, stderr } = await toolenv([
    ...['bench', '--learning', '--learner', 'linear', '--library', library, '--seeds', '2,3', '--out', out, '--json'],
    ...['--pool', '16', '--held-out', '2', '--tools', '1-2', '--rl-steps', '2', '--rl-batch', '2', '--rl-group', '2'],
    ...['--checkpoint-every', '1', '--curve-tasks', '2'],
  ]);
  assert.equal(code, 0, stderr);
  const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  return { summary, report: JSON.parse(readFileSync(join(out, 'learner.json'), 'utf8')) as LearnerReport };
}

test('the linear learner trains through the server and reports held-out numbers in one summary line', async () => {
  const { summary, report } = await learn(join(tempDir('toolenv-learner-'), 'run'));
  const head = ['learner', 'wall_s', 'seeds', 'episodes', 'heldout_tasks', 'heldout_apis_seen_in_training'];
  assert.deepEqual(Object.keys(summary).slice(0, 11), [...head, ...POLICIES]);
  assert.equal(summary.learner, 'linear');
  assert.deepEqual(summary.seeds, [2, 3]);
  assert.equal(summary.heldout_tasks, 2);
  assert.equal(summary.heldout_apis_seen_in_training, 0);
  assert.ok(Number.isFinite(summary.wall_s) && (summary.episodes as number) > 0);
  for (const name of POLICIES) {
    const s = summary[name] as { success: number; r_traj: number; spread: { success: number; r_traj: number } };
    assert.deepEqual(Object.keys(s), ['success', 'r_traj', 'spread'], name);
    for (const value of [s.success, s.r_traj, s.spread.success, s.spread.r_traj]) {
      assert.ok(Number.isFinite(value), `${name}: ${JSON.stringify(s)}`);
    }
  }
  // The episodes ran in the server process: it spent CPU on them, and scored every one.
  assert.ok(report.server_share > 0, String(report.server_share));
  assert.match(report.policy, /not a language model/);
  for (const run of report.runs) {
    assert.notDeepEqual(run.weights.trained, run.weights.initial, `seed ${run.seed}: the trained weights moved`);
    assert.notDeepEqual(run.weights.control, run.weights.initial, `seed ${run.seed}: the control's moved too`);
    assert.equal(run.heldout_apis_seen_in_training, 0);
    assert.deepEqual(
      run.curve.map((row) => row.step),
      [0, 1, 2],
    );
    assert.ok(run.curve.slice(1).every((row) => row.rollout_r_traj !== null && Number.isFinite(row.rollout_r_traj)));
  }
  const metrics = readFileSync(join(report.out, 'metrics.jsonl'), 'utf8').trim().split('\n');
  assert.equal(metrics.length, 3, 'the studio reads the curve as metrics.jsonl, a row per step');
});

test('the same seeds give the same numbers', async () => {
  const a = await learn(join(tempDir('toolenv-learner-'), 'a'));
  const b = await learn(join(tempDir('toolenv-learner-'), 'b'));
  for (const name of POLICIES) assert.deepEqual(a.summary[name], b.summary[name], name);
  assert.deepEqual(
    a.report.runs.map((r) => r.weights),
    b.report.runs.map((r) => r.weights),
  );
  assert.deepEqual(
    a.report.runs.map((r) => r.curve),
    b.report.runs.map((r) => r.curve),
  );
});

test('--learner takes lm or linear: anything else is one usage line and exit 2', async () => {
  const { code, stderr } = await toolenv(['bench', '--learning', '--learner', 'forest']);
  assert.equal(code, 2);
  assert.match(stderr, /^toolenv: --learner must be lm or linear, got "forest"\n$/);
});

test('--evaluate-on takes dev or test, and is the language model’s: the linear learner has no dev side', async () => {
  const linear = await toolenv(['bench', '--learning', '--learner', 'linear', '--evaluate-on', 'test']);
  assert.equal(linear.code, 2);
  assert.match(linear.stderr, /^toolenv: --evaluate-on is for --learner lm/);
  const wrong = await toolenv(['bench', '--learning', '--evaluate-on', 'holdout', '--library', 'nowhere']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /--evaluate-on must be one of dev, test, got "holdout"/);
});
