import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentName } from '../../src/agent/types.js';
import { summarize } from '../../src/eval/aggregate.js';
import { trajectoryFile, writeReport } from '../../src/eval/files.js';
import { headline, summaryLine, type EvalReport } from '../../src/eval/report.js';
import { renderMarkdown } from '../../src/eval/report-md.js';
import type { TaskScore } from '../../src/eval/score.js';
import { tempDir } from '../fixtures/tools.js';

function score(agent: AgentName, task_id: string, run: number, over: Partial<TaskScore>): TaskScore {
  return {
    task_id,
    agent,
    run,
    episode_id: `ep_${task_id}_${run}`,
    seed: 1,
    success: true,
    success_by: 'fallback',
    path: 1,
    path_mapped: 1,
    coverage: 1,
    coverage_mapped: 1,
    hit_rate: 1,
    references: 2,
    unmapped_references: 0,
    turns: 2,
    actions: 4,
    actions_per_turn: 2,
    well_formed_turns: 2,
    searches: 2,
    calls: 2,
    failed_calls: 0,
    injected_errors: 0,
    prompt_tokens: 300,
    completion_tokens: 50,
    tokens: 350,
    wall_ms: 1500,
    finish: 'answer',
    r_step: 0.75,
    r_phase: 0.5,
    r_traj: 1.2,
    r_ans: 1.5,
    ...over,
  };
}

function report(runs: number): EvalReport {
  // Task c names a reference the library lacks: run 1 of paraact invoked the mapped one only.
  const para = [
    score('paraact', 'a|b', 1, {}),
    score('paraact', 'c', 1, { success: false, path: 0.5, references: 2, unmapped_references: 1 }),
    score('paraact', 'a|b', 2, {}),
    score('paraact', 'c', 2, {}),
  ];
  // Task u has no reference tool, no expected answer and no judge: unscored.
  const unscored = {
    success: null,
    success_by: 'unscored',
    path: null,
    path_mapped: null,
    coverage: null,
    coverage_mapped: null,
    hit_rate: null,
    references: 0,
    turns: 5,
    actions: 5,
  } as const;
  const react = [
    score('react', 'a|b', 1, { turns: 5, actions: 5 }),
    score('react', 'c', 1, { success: false, finish: 'turn_cap', turns: 5, actions: 5, error: 'gave up\nearly' }),
    score('react', 'u', 1, unscored),
    score('react', 'a|b', 2, { turns: 5, actions: 5, trajectory_error: 'GET /v1/episodes/ep_9 answered 500: boom' }),
    score('react', 'c', 2, { success: false, finish: 'turn_cap', turns: 5, actions: 5 }),
    score('react', 'u', 2, unscored),
  ].filter((s) => s.run <= runs);
  const paraKept = para.filter((s) => s.run <= runs);
  return {
    created_at: '2025-01-01T00:00:00.000Z',
    server: 'http://127.0.0.1:8080',
    task_file: 'tasks.json',
    format: 'toolbench',
    agents: ['paraact', 'react'],
    policy: 'heuristic',
    judge: null,
    runs,
    concurrency: 4,
    max_turns: null,
    k: null,
    seed: 3,
    error_rate: 0.1,
    max_observation_chars: null,
    tasks: {
      total: 4,
      scored: 3,
      unmappable: [{ id: 'x', line: 9, references: ['Gone / api'] }],
      partially_mapped: [{ id: 'c', line: 5, unmapped: ['Lost / one'] }],
      unscored: [{ id: 'u', line: 7 }],
    },
    mapping: { references: 5, by_id: 0, exact: 3, normalized: 0, ambiguous: 0, unmapped: 2 },
    results: [
      { summary: summarize('paraact', paraKept, runs), scores: paraKept },
      { summary: summarize('react', react, runs), scores: react },
    ],
  };
}

test(
  'report.md: setup, one metrics row per agent (mean ± SD ' +
    'with several runs), charts, finish reasons, tasks, unmapped',
  () => {
    const md = renderMarkdown(report(2));
    assert.match(md, /^# ToolEnv eval/);
    assert.match(md, /- agents: paraact, react; policy: heuristic; judge: none/);
    assert.match(md, /- tasks: tasks\.json \(toolbench\), 3 run of 4, 1 of them unscored/);
    // A task misses a reference, so the mapped-only path and coverage get their own columns.
    assert.match(
      md,
      /\| Agent \| Success \| Path \| Path \(mapped\) \| Coverage \| Coverage \(mapped\) \| Hit rate \|/,
    );
    // paraact: success per run 1/2 and 2/2 → 75.0 ± 35.4; path 75 and 100 → 87.5 ± 17.7 (mapped: 100); turns 2.
    assert.match(
      md,
      /\| paraact \| 75\.0 ± 35\.4 \| 87\.5 ± 17\.7 \| 100\.0 ± 0\.0 \| 100\.0 ± 0\.0 \| 100\.0 ± 0\.0 \| 100\.0 ± 0\.0 \| 2\.00 ± 0\.00 \| 2\.00 ± 0\.00 \| 4\.00 ± 0\.00 \| 350 ± 0 \| 1\.50 ± 0\.00 \| 0\.00 ± 0\.00 \|/,
    );
    // react: the unscored task is left out of success (1 of 2 per run), not out of turns.
    assert.match(md, /\| react \| 50\.0 ± 0\.0 \|/);
    assert.match(md, /Each cell: mean ± sample SD over 2 runs\./);
    // Bar charts: react's 5 turns is the longest bar.
    const turns = md.slice(md.indexOf('Turns per task:'));
    assert.match(turns, /paraact {2}2 █{16}\n/);
    assert.match(turns, /react {4}5 █{40}\n/);
    assert.match(md, /\| react \| 4 \| 2 \| 0 \| 0 \| 0 \/ 0 \/ 4 \/ 2 \|/);
    assert.match(md, /\| u \| react \| unscored \| – \| – \| 5\.00 \| 5\.00 \| answer \|/);
    assert.match(md, /## Unscored tasks\n\n.*\n\n- u \(line 7\)\n/);
    // Task ids are escaped inside table cells; runs solved shown as k/N.
    assert.match(md, /\| a\\\|b \| paraact \| 2\/2 \| 100\.0 \| 100\.0 \| 2\.00 \| 4\.00 \| answer \|/);
    assert.match(md, /\| c \| paraact \| 1\/2 \| 75\.0 \|/);
    assert.match(md, /- c \(react, run 1\): gave up early/);
    assert.match(
      md,
      /- a\\\|b \(react, run 2\): no trajectory \(scored from the calls the agent saw\): GET \/v1\/episodes\/ep_9 answered 500: boom/,
    );
    assert.match(md, /- not run: x \(line 9\): none of Gone \/ api is in the library/);
    assert.match(
      md,
      /- c \(line 5\): Lost \/ one not in the library; counted as misses in path and coverage, left out of their mapped variants/,
    );
    assert.doesNotMatch(renderMarkdown(report(1)), /±/);
    // Without partly mapped tasks the mapped columns would repeat path and coverage: left out.
    const whole = report(1);
    whole.tasks.partially_mapped = [];
    assert.match(renderMarkdown(whole), /\| Agent \| Success \| Path \| Coverage \| Hit rate \|/);
  },
);

test('the --json summary: {agents: […]} for one agent as for several; std only with several runs', () => {
  const one = report(1);
  one.results = one.results.slice(0, 1);
  const line = summaryLine(one, 'out');
  assert.deepEqual(Object.keys(line), [
    'tasks',
    'runs',
    'policy',
    'agents',
    'unmappable',
    'unscored',
    'judge',
    'seed',
    'out',
  ]);
  assert.equal(line.tasks, 3);
  assert.equal(line.unscored, 1);
  assert.equal(line.unmappable, 1);
  assert.equal(line.out, 'out');
  const [flat] = line.agents as Record<string, unknown>[];
  assert.equal(flat!.agent, 'paraact');
  assert.equal(flat!.success, 0.5);
  assert.equal(flat!.path, 0.75);
  assert.equal(flat!.path_mapped, 1);
  assert.equal(flat!.actions_per_turn, 2);
  assert.equal(flat!.tokens, 350);
  assert.equal(flat!.std, undefined);

  const both = summaryLine(report(2));
  const agents = both.agents as Record<string, unknown>[];
  assert.deepEqual(
    agents.map((a) => a.agent),
    ['paraact', 'react'],
  );
  assert.equal(agents[1]!.turns, 5);
  assert.equal((agents[0]!.std as Record<string, number>).success, 0.3536);
  assert.equal(both.policy, 'heuristic');
});

test('means that stand on fewer task-runs than ran say how many, in JSON, text and markdown', () => {
  // 13 task-runs, 12 without an expected answer: success by the fallback rule for all, rewards for one.
  const noAnswer = {
    r_step: null,
    r_phase: null,
    r_traj: null,
    r_ans: null,
    reward_flag: 'no expected answer',
  } as const;
  const scores = [
    score('paraact', 't0', 1, { success: false, success_by: 'answer', r_traj: -0.4, r_ans: -0.5 }),
    ...Array.from({ length: 12 }, (_, i) => score('paraact', `t${i + 1}`, 1, noAnswer)),
  ];
  const summary = summarize('paraact', scores, 1);
  assert.equal(summary.task_runs, 13);
  assert.equal(summary.scored.success, 13);
  assert.equal(summary.scored.r_traj, 1);
  const base = report(1);
  const line = summaryLine({ ...base, results: [{ ...base.results[0]!, summary }] });
  const [agent] = line.agents as Record<string, unknown>[];
  assert.equal(agent!.task_runs, 13);
  assert.deepEqual(agent!.scored, {
    success: 13,
    path: 13,
    path_mapped: 13,
    coverage: 13,
    coverage_mapped: 13,
    hit_rate: 13,
    r_step: 1,
    r_phase: 1,
    r_traj: 1,
    r_ans: 1,
  });
  const [head, rewards] = headline(summary, false);
  assert.doesNotMatch(head!, /R_traj/, 'a mean over 1 of 13 is not in the headline');
  assert.match(head!, /success 92\.3% {2}path/);
  assert.match(rewards!, /rewards on 1 of 13 task-runs .*R_traj -0\.40/);
  assert.match(
    renderMarkdown({ ...base, results: [{ ...base.results[0]!, summary }] }),
    /\| paraact \| 1 of 13 \| 0\.75 \| 0\.50 \| -0\.40 \| -0\.50 \|/,
  );
  // Every task-run scored: one line, rewards in it.
  const full = headline(summarize('paraact', [score('paraact', 'a', 1, {})], 1), false);
  assert.equal(full.length, 1);
  assert.match(full[0]!, /R_traj 1\.20$/);
  const none = headline(summarize('paraact', [score('paraact', 'a', 1, noAnswer)], 1), false);
  assert.match(none[1]!, /rewards: none scored/);
});

test('report files and trajectory file names', () => {
  const dir = tempDir();
  const files = writeReport(dir, report(2));
  assert.equal((JSON.parse(readFileSync(files.json, 'utf8')) as EvalReport).results.length, 2);
  assert.match(readFileSync(files.markdown, 'utf8'), /## Metrics/);
  assert.equal(
    trajectoryFile(dir, { agent: 'react', task_id: '101', run: 2 }),
    join(dir, 'trajectories', 'react', '101.run2.json'),
  );
  const odd = trajectoryFile(dir, { agent: 'react', task_id: '../a b', run: 1 });
  assert.match(odd, /trajectories\/react\/a_b-[0-9a-f]{8}\.run1\.json$/);
  assert.notEqual(odd, trajectoryFile(dir, { agent: 'react', task_id: '../a/b', run: 1 }));
});
