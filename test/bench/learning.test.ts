import assert from 'node:assert/strict';
import { test } from 'node:test';
import { curveLine, rewardCurve, summarizeStages, type StageResult } from '../../src/bench/learning.js';
import type { StepMetrics } from '../../src/train/metrics.js';

const step = (n: number, r_traj: number | null, r_step: number, success: number | null): StepMetrics => ({
  step: n,
  episodes: 8,
  r_step,
  r_phase: 0,
  r_traj,
  r_ans: null,
  success,
  flagged: 0,
  turns: 3,
  actions_per_turn: 1,
  tokens: 100,
  wall_s: 1,
});

test('the reward curve compares the first quarter of the GRPO steps with the last', () => {
  const rows = [
    step(1, -0.5, 0.1, 0),
    step(2, -0.3, 0.2, 0),
    step(3, 0.1, 0.3, 0.25),
    step(4, 0.5, 0.4, 0.5),
    step(5, 0.7, 0.5, 0.5),
    step(6, 0.9, 0.6, 0.75),
    step(7, 1.1, 0.7, 0.75),
    step(8, 1.3, 0.8, 1),
  ];
  const curve = rewardCurve(rows, 4);
  assert.deepEqual(curve, {
    steps: 8,
    window: 2,
    prompts: 8,
    same_tasks: false,
    first: { r_traj: -0.4, r_step: 0.15, success: 0 },
    last: { r_traj: 1.2, r_step: 0.75, success: 0.875 },
    points: [
      { r_traj: -0.4, r_step: 0.15, success: 0 },
      { r_traj: 0.3, r_step: 0.35, success: 0.375 },
      { r_traj: 0.8, r_step: 0.55, success: 0.625 },
      { r_traj: 1.2, r_step: 0.75, success: 0.875 },
    ],
  });
  assert.doesNotMatch(curveLine(curve), /too few/);
  // Fewer than four steps still compare the first with the last; a step whose rollouts were all flagged is left out.
  const short = rewardCurve([step(1, null, 0.2, null), step(2, 0.4, 0.6, 1)], 1);
  assert.deepEqual(short, {
    steps: 2,
    window: 1,
    prompts: 1,
    same_tasks: false,
    first: { r_traj: null, r_step: 0.2, success: null },
    last: { r_traj: 0.4, r_step: 0.6, success: 1 },
    points: [
      { r_traj: null, r_step: 0.2, success: null },
      { r_traj: 0.4, r_step: 0.6, success: 1 },
    ],
  });
  // One prompt at each end: the line says the ends differ by their tasks as much as by training.
  assert.match(
    curveLine(short),
    /^R_traj – → 0\.400, .* \(mean of the first and the last 1 of 2 steps, 1 prompt each: too few to tell learning from which tasks were drawn; the held-out stages are the measure\)$/,
  );
});

test('GRPO over a fixed set of tasks compares its first epoch with its last whole one', () => {
  // 8 tasks, 2 prompts a step: an epoch is 4 steps; 10 steps hold two whole epochs and half of a third.
  const rows = Array.from({ length: 10 }, (_, i) => step(i + 1, i / 10, 0.5, i >= 4 ? 0.5 : 0));
  const curve = rewardCurve(rows, 2, 8);
  assert.equal(curve.same_tasks, true);
  assert.equal(curve.window, 4);
  assert.equal(curve.prompts, 8);
  assert.deepEqual(curve.first, { r_traj: 0.15, r_step: 0.5, success: 0 });
  assert.deepEqual(curve.last, { r_traj: 0.55, r_step: 0.5, success: 0.5 });
  // Every whole epoch is a point of the curve; the half epoch at the end is not one.
  assert.deepEqual(
    curve.points.map((p) => p.r_traj),
    [0.15, 0.55],
  );
  assert.match(
    curveLine(curve),
    /\(the first epoch against the last of 10 steps: the same 8 tasks, 4 steps each\); by epoch: R_traj 0\.150, 0\.550; success 0\.0%, 50\.0%$/,
  );
  // Under two epochs, or tasks that do not fill whole steps, the ends are quarters of the steps again.
  assert.equal(rewardCurve(rows.slice(0, 7), 2, 8).same_tasks, false);
  assert.equal(rewardCurve(rows, 3, 8).same_tasks, false);
});

test('the stage summary averages the seeds’ curves beside their held-out numbers', () => {
  const run = (seed: number, curve?: StageResult['curve']): StageResult => ({
    stage: 'rl',
    protocol: 'paraact',
    seed,
    success: 0.1 * seed,
    success_1tool: 0.1 * seed,
    well_formed: 0.5,
    path: 0,
    turns: 3,
    actions_per_turn: 1,
    r_step: 0.3,
    r_phase: 0,
    r_traj: 0.2 * seed,
    wall_s: 10,
    tokens_per_s: 100,
    copy_accuracy: 0.2 * seed,
    other_accuracy: null,
    ...(curve ? { curve } : {}),
  });
  const curve = (from: number, to: number): StageResult['curve'] => {
    const first = { r_traj: from, r_step: 0, success: 0 };
    const last = { r_traj: to, r_step: 1, success: 0.5 };
    return { steps: 8, window: 2, prompts: 2, same_tasks: true, first, last, points: [first, last] };
  };
  const [rl] = summarizeStages([run(1, curve(-0.5, 0.5)), run(2, curve(-0.3, 0.9))]);
  assert.equal(rl!.success, 0.15);
  assert.equal(rl!.spread.r_traj, 0.1414);
  assert.equal(rl!.copy_accuracy, 0.3);
  assert.equal(rl!.other_accuracy, null);
  assert.deepEqual(rl!.curve, {
    steps: 8,
    window: 2,
    prompts: 4,
    same_tasks: true,
    first: { r_traj: -0.4, r_step: 0, success: 0 },
    last: { r_traj: 0.7, r_step: 1, success: 0.5 },
    points: [
      { r_traj: -0.4, r_step: 0, success: 0 },
      { r_traj: 0.7, r_step: 1, success: 0.5 },
    ],
  });
  const [sft] = summarizeStages([{ ...run(1), stage: 'sft' }]);
  assert.equal(sft!.curve, undefined);
});
