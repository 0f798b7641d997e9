import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRun, CallRecord } from '../../src/agent/types.js';
import { summarize, stat } from '../../src/eval/aggregate.js';
import type { EvalTask } from '../../src/eval/map-references.js';
import { answerContains, failedScore, scoreRun } from '../../src/eval/score.js';
import { episodeSeed } from '../../src/eval/seed.js';

/**
 * A task as reference mapping leaves it: `reference_tools` are the mapped ids; `unmapped` more references matched no
 * tool.
 */
const evalTask = (reference_tools?: string[], answer?: string | string[], unmapped: string[] = []): EvalTask => ({
  task: {
    id: 't1',
    query: 'q',
    ...(reference_tools ? { reference_tools } : {}),
    ...(answer !== undefined ? { answer } : {}),
  },
  line: 1,
  mapping: [
    ...(reference_tools ?? []).map((id) => ({ reference: { id }, id, match: 'id' as const })),
    ...unmapped.map((api_name) => ({ reference: { tool_name: 'Lost Tool', api_name } })),
  ],
});

const call = (tool: string, ok: boolean, turn = 1): CallRecord => ({ tool, status: ok ? 200 : 503, ok, turn });

/** An AgentRun as the client returns it; the trajectory's counts are what the server recorded. */
function agentRun(over: Partial<AgentRun> & { injected?: number; searches?: number } = {}): AgentRun {
  const { injected = 0, searches = 2, ...rest } = over;
  const calls = rest.calls ?? [];
  return {
    task_id: 't1',
    agent: 'paraact',
    policy: 'heuristic',
    episode_id: 'ep_1',
    answer: 'Rex is sold',
    finish: 'answer',
    turns: 3,
    actions: searches + calls.length,
    tokens: { prompt: 100, completion: 20 },
    wall_ms: 50,
    calls,
    surfaced: [],
    messages: [],
    trajectory: {
      id: 'ep_1',
      seed: 42,
      error_rate: 0.1,
      max_steps: 50,
      protocol: 'paraact',
      k: 3,
      max_calls_per_turn: 3,
      max_turns: 15,
      created_at: '2025-01-01T00:00:00.000Z',
      done: false,
      working_set: [],
      counts: {
        turns: 0,
        steps: 3,
        actions: searches + calls.length,
        searches,
        calls: calls.length,
        failed_calls: calls.filter((c) => !c.ok).length,
        injected_errors: injected,
      },
      steps: [],
      turns: [],
    },
    ...rest,
  };
}

test(
  'path counts reference tools invoked successfully; ' + 'coverage counts those search surfaced; hit rate counts calls',
  () => {
    const run = agentRun({
      calls: [call('a', false), call('a', true, 2), call('b', false), call('x', true)],
      surfaced: ['x', 'a', 'b', 'y'],
      injected: 2,
    });
    const score = scoreRun(evalTask(['a', 'b', 'c']), run, 1);
    assert.equal(score.path, 1 / 3, 'b only failed; c was never called');
    assert.equal(score.coverage, 2 / 3);
    assert.equal(score.hit_rate, 3 / 4);
    assert.equal(score.actions, 6);
    assert.equal(score.actions_per_turn, 2);
    assert.equal(score.searches, 2);
    assert.equal(score.calls, 4);
    assert.equal(score.failed_calls, 2);
    assert.equal(score.injected_errors, 2);
    assert.equal(score.tokens, 120);
    assert.equal(score.seed, 42);
    // Fallback rule: answered, but not every reference tool succeeded.
    assert.deepEqual([score.success, score.success_by], [false, 'fallback']);
  },
);

test('success: the expected answer decides when there is one; else the judge; else answered with the full path', () => {
  const full = agentRun({ calls: [call('a', true)], surfaced: ['a'] });
  assert.deepEqual(pick(scoreRun(evalTask(['a']), full, 1)), [true, 'fallback']);
  assert.deepEqual(pick(scoreRun(evalTask(['a'], ['REX', 'sold']), full, 1)), [true, 'answer']);
  assert.deepEqual(pick(scoreRun(evalTask(['a'], 'Tom'), full, 1)), [false, 'answer']);
  assert.deepEqual(pick(scoreRun(evalTask(['a']), full, 1, { solved: false, reason: 'vague' })), [false, 'judge']);
  assert.deepEqual(pick(scoreRun(evalTask(['b']), full, 1, { solved: true, reason: 'ok' })), [true, 'judge']);
  // No answer is never a success, whatever decides.
  const capped = agentRun({ finish: 'turn_cap', answer: undefined, calls: [call('a', true)] });
  assert.deepEqual(pick(scoreRun(evalTask(['a']), capped, 1)), [false, 'fallback']);
  assert.deepEqual(pick(scoreRun(evalTask(['a'], 'rex'), capped, 1)), [false, 'answer']);
  // Without an expected answer, a judge or reference tools nothing decides success, whatever the answer says: unscored.
  for (const answer of ['Rex is sold', 'not done: no tool could do it']) {
    const bare = scoreRun(evalTask(), agentRun({ answer }), 1);
    assert.deepEqual(
      [bare.success, bare.success_by, bare.path, bare.coverage, bare.hit_rate],
      [null, 'unscored', null, null, null],
      answer,
    );
  }
  // An expected answer or a judge still decides such a task.
  assert.deepEqual(pick(scoreRun(evalTask(undefined, 'rex'), agentRun(), 1)), [true, 'answer']);
  assert.deepEqual(pick(scoreRun(evalTask(), agentRun(), 1, { solved: false, reason: 'vague' })), [false, 'judge']);
});

test(
  'reference tools the library lacks count as misses in path and ' +
    'coverage (and fail the fallback); the mapped variants leave them out',
  () => {
    const run = agentRun({ calls: [call('a', true), call('b', false), call('x', true)], surfaced: ['a', 'b', 'x'] });
    const score = scoreRun(evalTask(['a', 'b'], undefined, ['gone']), run, 1);
    assert.equal(score.references, 3);
    assert.equal(score.unmapped_references, 1);
    assert.equal(score.path, 1 / 3);
    assert.equal(score.path_mapped, 1 / 2);
    assert.equal(score.coverage, 2 / 3);
    assert.equal(score.coverage_mapped, 1);
    assert.equal(score.hit_rate, 2 / 3);

    // Every mapped tool invoked: the mapped path is complete, the task's is not, so the fallback does not count it
    // solved.
    const full = scoreRun(
      evalTask(['a'], undefined, ['gone']),
      agentRun({ calls: [call('a', true)], surfaced: ['a'] }),
      1,
    );
    assert.deepEqual([full.path, full.path_mapped, full.success, full.success_by], [0.5, 1, false, 'fallback']);
    // An expected answer still decides.
    assert.deepEqual(pick(scoreRun(evalTask(['a'], 'Rex', ['gone']), agentRun({ calls: [call('a', true)] }), 1)), [
      true,
      'answer',
    ]);

    const summary = summarize(
      'paraact',
      [full, scoreRun(evalTask(['a']), agentRun({ calls: [call('a', true)], surfaced: ['a'] }), 1)],
      1,
    );
    assert.equal(summary.stats.path.mean, 0.75);
    assert.equal(summary.stats.path_mapped.mean, 1);
    assert.equal(summary.stats.coverage.mean, 0.75);
    assert.equal(summary.stats.coverage_mapped.mean, 1);
  },
);

test('unscored task-runs are left out of the success mean and counted apart', () => {
  const scores = [
    scoreRun(evalTask(['a']), agentRun({ calls: [call('a', true)] }), 1),
    scoreRun(evalTask(['a']), agentRun({ calls: [] }), 1),
    scoreRun(evalTask(), agentRun(), 1),
    failedScore(evalTask(), 'paraact', 1, 'server went away', 3, null),
  ];
  const summary = summarize('paraact', scores, 1);
  assert.equal(summary.stats.success.mean, 0.5, 'one of the two scored task-runs');
  assert.deepEqual(summary.success_by, { answer: 0, state: 0, judge: 0, fallback: 2, unscored: 2 });
  assert.equal(summary.stats.turns.mean, (3 + 3 + 3 + 0) / 4, 'other metrics count every task-run');
  // Nothing scored at all: no success mean.
  assert.deepEqual(summarize('paraact', scores.slice(2), 1).stats.success, { mean: null, std: null });
});

test('a run whose trajectory could not be fetched is scored from the calls the agent client saw', () => {
  const run = agentRun({
    calls: [
      call('a', true),
      { tool: 'b', status: 429, ok: false, turn: 2, error: '429 rate_limit, injected', injected: 'rate_limit' },
      call('b', true, 3),
    ],
    surfaced: ['a', 'b'],
    searches: 1,
    seed: 77,
    trajectory: undefined,
    trajectory_error: 'GET /v1/episodes/ep_1 answered 500: boom',
  });
  const score = scoreRun(evalTask(['a', 'b']), run, 1);
  assert.deepEqual(
    [
      score.success,
      score.path,
      score.coverage,
      score.calls,
      score.searches,
      score.failed_calls,
      score.injected_errors,
      score.seed,
      score.trajectory_error,
    ],
    [true, 1, 1, 3, 1, 1, 1, 77, 'GET /v1/episodes/ep_1 answered 500: boom'],
  );
});

test('answers match case-insensitively, every expected string required', () => {
  assert.equal(answerContains('The pet Rex is SOLD.', ['rex', 'sold']), true);
  assert.equal(answerContains('The pet Rex is available.', ['rex', 'sold']), false);
  assert.equal(answerContains(undefined, 'rex'), false);
});

test('a run that threw is a failure with zero path and coverage and its error kept', () => {
  const score = failedScore(evalTask(['a', 'b']), 'react', 2, 'server went away', 12, 7);
  assert.deepEqual(
    [score.success, score.path, score.path_mapped, score.coverage, score.finish, score.error, score.run, score.seed],
    [false, 0, 0, 0, 'error', 'server went away', 2, 7],
  );
  assert.equal(score.actions_per_turn, null);
  assert.deepEqual(pick(failedScore(evalTask(['a']), 'react', 1, 'x', 1, null, true)), [false, 'judge']);
  assert.deepEqual(pick(failedScore(evalTask(), 'react', 1, 'x', 1, null)), [null, 'unscored']);
});

test('summaries: per-run means, then mean and sample SD over runs; actions per turn pooled within a run', () => {
  const t = evalTask(['a', 'b']);
  const scores = [
    // Run 1: success 1/2, path (1 + 0.5) / 2, turns 2 and 4, actions 7 over 6 turns.
    scoreRun(t, agentRun({ turns: 2, searches: 1, calls: [call('a', true), call('b', true), call('b', true)] }), 1),
    scoreRun(t, agentRun({ turns: 4, searches: 2, calls: [call('a', true)], injected: 1 }), 1),
    // Run 2: success 0/2, path 0 and 0.5, turns 3 and 3, actions 4 over 6 turns.
    scoreRun(t, agentRun({ turns: 3, searches: 2, calls: [], finish: 'turn_cap', answer: undefined }), 2),
    scoreRun(t, agentRun({ turns: 3, searches: 1, calls: [call('a', true)] }), 2),
  ];
  const summary = summarize('paraact', scores, 2);
  assert.equal(summary.tasks, 2);
  assert.equal(summary.stats.success.mean, 0.25);
  assert.ok(Math.abs(summary.stats.success.std! - Math.SQRT1_2 * 0.5) < 1e-12, String(summary.stats.success.std));
  assert.equal(summary.stats.path.mean, (0.75 + 0.25) / 2);
  assert.equal(summary.stats.turns.mean, 3);
  assert.equal(summary.stats.turns.std, 0);
  assert.ok(Math.abs(summary.stats.actions_per_turn.mean! - (7 / 6 + 4 / 6) / 2) < 1e-12);
  assert.equal(summary.stats.injected_errors.mean, 0.25);
  assert.equal(summary.injected_errors_total, 1);
  assert.deepEqual(summary.finish, { answer: 3, turn_cap: 1, episode_done: 0, error: 0 });
  assert.deepEqual(summary.success_by, { answer: 0, state: 0, judge: 0, fallback: 4, unscored: 0 });
  // One run: no SD.
  assert.equal(summarize('paraact', scores.slice(0, 2), 1).stats.success.std, null);
});

test('stat: the sample standard deviation (n - 1)', () => {
  assert.deepEqual(stat([]), { mean: null, std: null });
  assert.deepEqual(stat([2]), { mean: 2, std: null });
  assert.deepEqual(stat([2, 4, 4, 4, 5, 5, 7, 9]), { mean: 5, std: Math.sqrt(32 / 7) });
});

test('episode seeds are a function of (seed, task, run) alone', () => {
  const seed = episodeSeed(1, 'task-a', 1);
  assert.equal(episodeSeed(1, 'task-a', 1), seed);
  assert.ok(Number.isSafeInteger(seed) && seed >= 0 && seed < 2 ** 31);
  const others = [episodeSeed(2, 'task-a', 1), episodeSeed(1, 'task-b', 1), episodeSeed(1, 'task-a', 2)];
  assert.equal(new Set([seed, ...others]).size, 4);
});

function pick(score: { success: boolean | null; success_by: string }): [boolean | null, string] {
  return [score.success, score.success_by];
}

test('write tasks: success is state_success as the server read it; r_state is averaged over them alone', () => {
  const expect = [{ assert: 'exists' as const, api: 'notes.test', collection: '/notes', where: { title: 'x' } }];
  const write: EvalTask = { ...evalTask(), task: { id: 't1', query: 'q', expect } };
  const rewards = (r_state: number) => ({ r_state, state_success: r_state === 1 }) as unknown as AgentRun['rewards'];
  const solved = scoreRun(write, agentRun({ rewards: rewards(1) }), 1);
  const half = scoreRun(write, agentRun({ rewards: rewards(0.5) }), 1);
  const asked = scoreRun(evalTask(['a'], 'Rex'), agentRun({ calls: [call('a', true)] }), 1);
  assert.deepEqual(
    [solved, half].map((s) => [s.success, s.success_by, s.r_state, s.state_success]),
    [
      [true, 'state', 1, true],
      [false, 'state', 0.5, false],
    ],
  );
  assert.equal('r_state' in asked, false, 'an answer-only task carries no state member');
  const summary = summarize('paraact', [solved, half, asked], 1);
  assert.deepEqual(summary.stats.r_state, { mean: 0.75, std: null });
  assert.deepEqual(summary.stats.state_success, { mean: 0.5, std: null });
  assert.deepEqual([summary.scored.r_state, summary.success_by.state], [2, 2]);
  assert.equal(failedScore(write, 'paraact', 1, 'gone', 1, null).success_by, 'state');
});
