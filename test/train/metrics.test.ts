import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchScript, shellQuote, type TrainJson } from '../../src/train/config.js';
import { readJsonLines, sftMetrics, stepMetrics, trainerLogs, type EpisodeRecord } from '../../src/train/metrics.js';
import { tempDir } from '../fixtures/tools.js';

const record = (step: number, over: Partial<EpisodeRecord>): EpisodeRecord => ({
  step,
  episode: `e${Math.random()}`,
  r_step: 0.5,
  r_phase: 0,
  r_traj: -0.5,
  r_ans: -0.5,
  success: false,
  turns: 2,
  actions: 2,
  tokens: 10,
  time: 100 + step,
  ...over,
});

test(
  'stepMetrics: means per step over the scored rollouts, ' + 'the engine’s log joined, wall time from the step before',
  () => {
    const records = [
      record(1, { r_step: 1, r_traj: 1.5, success: true, turns: 3, actions: 5, time: 104 }),
      record(1, { r_step: 0, r_traj: null, r_phase: null, r_ans: null, success: null, flagged: 'no judge', time: 103 }),
      record(2, { time: 110, tokens: 7 }),
    ];
    const rows = stepMetrics(
      records,
      [
        { step: 1, loss: 0.25, grad_norm: 2, time: 105, frac_reward_zero_std: 0.5 },
        { step: 2, train_loss: 1 },
      ],
      100,
    );
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[0], {
      step: 1,
      episodes: 2,
      r_step: 0.5,
      r_phase: 0,
      r_traj: 1.5,
      r_ans: -0.5,
      success: 1,
      flagged: 1,
      turns: 2.5,
      actions_per_turn: 1.4,
      tokens: 20,
      wall_s: 5,
      loss: 0.25,
      grad_norm: 2,
      frac_reward_zero_std: 0.5,
    });
    assert.equal(rows[1]!.wall_s, 5, 'from the end of step 1 (its log line at 105)');
    assert.equal(rows[1]!.loss, undefined, 'a log line without a loss (the run summary) is no step');
  },
);

test('sftMetrics and the readers: complete lines only, verl’s file logger mapped to the same names', () => {
  const run = tempDir('toolenv-train-');
  mkdirSync(join(run, 'episodes'));
  writeFileSync(join(run, 'episodes', '1.jsonl'), `${JSON.stringify(record(1, {}))}\n{"step": 1, "epi`);
  assert.equal(readJsonLines<EpisodeRecord>(join(run, 'episodes')).length, 1, 'a line still being written waits');
  writeFileSync(
    join(run, 'trainer.jsonl'),
    '{"step": 1, "loss": 2, "num_tokens": 300, "time": 12}\n{"step": 2, "loss": 1.5, "time": 13.5}\n',
  );
  writeFileSync(
    join(run, 'verl.jsonl'),
    '{"step": 3, "data": {"actor/pg_loss": 0.1, "actor/grad_norm": 4, "actor/lr": 1e-6}}\n',
  );
  const logs = trainerLogs(run);
  assert.deepEqual(logs[2], { step: 3, loss: 0.1, grad_norm: 4, learning_rate: 1e-6 });
  assert.deepEqual(sftMetrics(logs.slice(0, 2), 10), [
    { step: 1, loss: 2, wall_s: 2, tokens: 300 },
    { step: 2, loss: 1.5, wall_s: 1.5 },
  ]);
});

test('launchScript: the engine command with the run’s server as a default TOOLENV_URL overrides', () => {
  const config: TrainJson = {
    engine: 'verl',
    stage: 'rl',
    run_dir: "/runs/it's",
    model: '/m',
    server: 'http://127.0.0.1:9',
    steps: 2,
    group: 8,
    prompts_per_step: 4,
    seed: 0,
    episode: {},
    max_turn_tokens: 512,
    max_completion_length: 1024,
    max_seq_len: 4096,
    lora_rank: 0,
    lora_layers: 0,
    generation_batch: 8,
    trainer: {},
  };
  const script = launchScript(config, '/venv/bin/python');
  assert.match(script, /export TOOLENV_URL="\$\{TOOLENV_URL:-http:\/\/127\.0\.0\.1:9\}"/);
  assert.match(script, /exec \/venv\/bin\/python -m toolenv\.verl '\/runs\/it'\\''s\/train\.json' "\$@"/);
  assert.equal(shellQuote('a b'), "'a b'");
  assert.equal(shellQuote('plain/path-1.txt'), 'plain/path-1.txt');
});
