import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerState, Trajectory, TurnPlan, TurnRecord } from '../../src/wire/episodes.js';
import { groupAdvantages } from '../../src/rl/advantages.js';
import { answerReward, ruleVerdicts } from '../../src/rl/answer.js';
import { phaseScores, type SubgraphSource } from '../../src/rl/phase.js';
import { answerOutcome, scoreTrajectory } from '../../src/rl/rewards.js';
import { stepReward } from '../../src/rl/step.js';
import { DEFAULT_COEFFICIENTS, type Verdict, type Verdicts } from '../../src/wire/rewards.js';

/** A turn record with defaults: well formed, nothing ran. */
function turn(n: number, over: Partial<TurnRecord> = {}): TurnRecord {
  return {
    turn: n,
    text: '',
    well_formed: true,
    controller: 'may',
    searches: [],
    calls: [],
    not_run: [],
    observation: '',
    ...over,
  };
}
const searched = (n: number, results: string[], over: Partial<TurnRecord> = {}) =>
  turn(n, {
    controller: 'need',
    plan: { phase: 'exploration', valid: true, repeated: false, accepted: true, slots: ['q'] },
    searches: [{ id: `s${n}`, query: 'q', results }],
    ...over,
  });
const ok = (id: string, tool: string) => ({ id, tool, status: 200, ok: true });
const failed = (id: string, tool: string) => ({ id, tool, status: 500, ok: false });
function execution(
  calls: { id: string; tool: string; depends_on?: string[] }[],
  layers: string[][],
  tools = [...new Set(calls.map((c) => c.tool))],
): TurnPlan {
  return {
    phase: 'execution',
    valid: true,
    repeated: false,
    accepted: true,
    tools,
    calls: calls.map((c) => ({ depends_on: [], ...c })),
    layers,
  };
}
/** G_dep as a list of edges. */
const graphOf = (edges: { src: string; dst: string; kind: 'hard' | 'soft' }[]): SubgraphSource => ({
  subgraph: (ids) => {
    const set = new Set(ids);
    return edges.filter((e) => set.has(e.src) && set.has(e.dst));
  },
});
const W = DEFAULT_COEFFICIENTS;
const close = (actual: number | null, expected: number, what = '') =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

describe('R_step (Eq. 4, Table 8)', () => {
  const plan = (over: Partial<TurnPlan> = {}): TurnPlan => ({
    phase: 'execution',
    valid: true,
    repeated: false,
    accepted: true,
    ...over,
  });
  const cases: [string, ControllerState, TurnPlan | undefined, 0 | 1][] = [
    ['Need: a valid plan', 'need', plan(), 1],
    ['Need: no plan', 'need', undefined, 0],
    ['Need: an invalid plan', 'need', plan({ valid: false }), 0],
    ['Need: the exhausted plan repeated', 'need', plan({ repeated: true }), 0],
    ['May: no plan', 'may', undefined, 1],
    ['May: a valid new plan', 'may', plan(), 1],
    ['May: an invalid plan', 'may', plan({ valid: false }), 0],
    ['May: a repeated plan', 'may', plan({ repeated: true }), 0],
    ['No: no plan', 'no', undefined, 1],
    ['No: a repeated plan', 'no', plan({ repeated: true }), 0],
    ['No: a new plan without new information', 'no', plan(), 0],
    ['Answer: the final answer', 'answer', undefined, 0],
  ];
  for (const [name, state, p, expected] of cases) {
    it(`${name} → r_plan ${expected}`, () => {
      const { steps } = stepReward([turn(1, { controller: state, ...(p ? { plan: p } : {}) })]);
      assert.equal(steps[0]!.r_plan, expected);
      assert.equal(steps[0]!.r_base, 1);
    });
  }

  it('averages r_base + r_plan over every step, halved; a malformed step loses r_base; the answer step counts', () => {
    const turns = [
      turn(1, { controller: 'need', plan: plan() }), // 1 + 1
      turn(2, { controller: 'may', well_formed: false }), // 0 + 1
      turn(3, { controller: 'no', plan: plan({ repeated: true }) }), // 1 + 0
      turn(4, { controller: 'answer' }), // 1 + 0
    ];
    const { r_step, steps } = stepReward(turns);
    assert.deepEqual(
      steps.map((s) => [s.r_base, s.r_plan]),
      [
        [1, 1],
        [0, 1],
        [1, 0],
        [1, 0],
      ],
    );
    close(r_step, 5 / 8);
    assert.equal(stepReward([]).r_step, 0);
  });
});

describe('R_ans (Table 9)', () => {
  const bits: Record<string, number> = {
    '000': -0.5,
    '010': -0.5,
    '100': -0.5,
    '001': 0,
    '101': 0,
    '011': 0.5,
    '110': 0.5,
    '111': 1.5,
  };
  const v = (b: string): Verdicts => {
    const at = (i: number): Verdict => (b[i] === '1' ? 'YES' : i === 0 ? 'PARTIAL' : 'NO');
    return { quality: at(0), faithfulness: at(1), utility: at(2) };
  };
  for (const [pattern, expected] of Object.entries(bits))
    it(`${pattern} → ${expected}`, () => assert.equal(answerReward(v(pattern)), expected));

  it(
    'rule-based verdicts: complete and read off the results 111, ' + 'honest and partial 011, a guess 100, a miss 010',
    () => {
      assert.deepEqual(ruleVerdicts(['Rex', 'sold'], 'Rex is sold', '{"name":"Rex","status":"sold"}'), {
        quality: 'YES',
        faithfulness: 'YES',
        utility: 'YES',
      });
      assert.deepEqual(ruleVerdicts(['Rex', 'sold'], 'The pet is Rex', '{"name":"Rex","status":"sold"}'), {
        quality: 'NO',
        faithfulness: 'YES',
        utility: 'YES',
      });
      assert.deepEqual(ruleVerdicts('rex', 'REX', '{"error":"down"}'), {
        quality: 'YES',
        faithfulness: 'NO',
        utility: 'NO',
      });
      assert.deepEqual(ruleVerdicts('Rex', 'The tools failed', '{"error":"down"}'), {
        quality: 'NO',
        faithfulness: 'YES',
        utility: 'NO',
      });
    },
  );
});

describe('R_phase (Eq. 5, C.2)', () => {
  // a → b hard (b needs a's output), a → c soft.
  const graph = graphOf([
    { src: 'a', dst: 'b', kind: 'hard' },
    { src: 'a', dst: 'c', kind: 'soft' },
  ]);
  const explore = searched(1, ['a', 'b', 'c', 'x']);
  const good = execution(
    [
      { id: 'c1', tool: 'a' },
      { id: 'c2', tool: 'b', depends_on: ['c1'] },
    ],
    [['c1'], ['c2']],
  );
  const run = (plan: TurnPlan, calls2: TurnRecord['calls'], calls3: TurnRecord['calls'] = []) => [
    explore,
    turn(2, { controller: 'need', plan, calls: calls2 }),
    turn(3, { controller: 'may', calls: calls3 }),
    turn(4, { controller: 'answer', answer: 'done' }),
  ];

  it('a grounded plan with the hard edge, in order, executed when ready scores 1', () => {
    const [phase] = phaseScores(run(good, [ok('c1', 'a')], [ok('c2', 'b')]), W, graph);
    assert.deepEqual(phase!.turns, [2, 3]);
    assert.equal(phase!.l1, true);
    assert.equal(phase!.l2, true);
    assert.equal(phase!.l3, true);
    close(phase!.l4_ratio, 1);
    close(phase!.score, 1);
  });

  it('L1 fails on a tool search never returned, or a declared tool listed twice: the phase scores 0', () => {
    const ungrounded = { ...good, tools: ['a', 'b', 'y'] };
    assert.equal(phaseScores(run(ungrounded, [ok('c1', 'a')], [ok('c2', 'b')]), W, graph)[0]!.score, 0);
    const duplicated = { ...good, tools: ['a', 'b', 'a'] };
    const [phase] = phaseScores(run(duplicated, [ok('c1', 'a')], [ok('c2', 'b')]), W, graph);
    assert.equal(phase!.l1, false);
    assert.equal(phase!.score, 0);
  });

  it('L2 fails on a missing hard edge or an edge G_sub lacks; a soft edge may be declared or not', () => {
    const missing = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b' },
      ],
      [['c1'], ['c2']],
    );
    const [noEdge] = phaseScores(run(missing, [ok('c1', 'a')], [ok('c2', 'b')]), W, graph);
    assert.equal(noEdge!.l2, false);
    assert.equal(noEdge!.l3, true, 'L3 is checked independently of L2');
    close(noEdge!.score, W.w1 + W.w3 + W.w4);

    const unsupported = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b', depends_on: ['c1'] },
        { id: 'c3', tool: 'x', depends_on: ['c2'] },
      ],
      [['c1'], ['c2'], ['c3']],
    );
    const calls = [ok('c2', 'b')];
    assert.equal(phaseScores(run(unsupported, [ok('c1', 'a')], calls), W, graph)[0]!.l2, false);

    const withSoft = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b', depends_on: ['c1'] },
        { id: 'c3', tool: 'c', depends_on: ['c1'] },
      ],
      [['c1'], ['c2', 'c3']],
    );
    const withoutSoft = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b', depends_on: ['c1'] },
        { id: 'c3', tool: 'c' },
      ],
      [['c1', 'c3'], ['c2']],
    );
    assert.equal(phaseScores(run(withSoft, [ok('c1', 'a')]), W, graph)[0]!.l2, true);
    assert.equal(phaseScores(run(withoutSoft, [ok('c1', 'a')]), W, graph)[0]!.l2, true);
  });

  it('L3 fails when a hard downstream runs in the same or an earlier layer, or a declared tool is in no layer', () => {
    const together = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b', depends_on: ['c1'] },
      ],
      [['c1', 'c2']],
    );
    const [sameLayer] = phaseScores(run(together, [ok('c1', 'a'), ok('c2', 'b')]), W, graph);
    assert.equal(sameLayer!.l3, false);
    assert.equal(sameLayer!.l2, true);
    const uncovered = { ...good, tools: ['a', 'b', 'c'] };
    assert.equal(phaseScores(run(uncovered, [ok('c1', 'a')], [ok('c2', 'b')]), W, graph)[0]!.l3, false);
  });

  it(
    'L4 counts scheduled calls that succeeded once their hard ' +
      'upstream had succeeded in an earlier turn (not the same batch)',
    () => {
      const [sameBatch] = phaseScores(run(good, [ok('c1', 'a'), ok('c2', 'b')]), W, graph);
      close(sameBatch!.l4_ratio, 0.5, 'c2 ran beside c1');
      const [upstreamFailed] = phaseScores(run(good, [failed('c1', 'a')], [ok('c2', 'b')]), W, graph);
      close(upstreamFailed!.l4_ratio, 0, 'c1 failed, c2 ran before a succeeded');
      const [half] = phaseScores(run(good, [ok('c1', 'a')], [failed('c2', 'b')]), W, graph);
      close(half!.l4_ratio, 0.5);
      close(half!.score, W.w1 + W.w2 + W.w3 + W.w4 * 0.5);
    },
  );

  it('a refreshed plan opens a window weighted by the calls it still schedules; a search ends the phase', () => {
    const replan = execution(
      [
        { id: 'c1', tool: 'a' },
        { id: 'c2', tool: 'b', depends_on: ['c1'] },
        { id: 'c3', tool: 'c', depends_on: ['c1'] },
      ],
      [['c1'], ['c2', 'c3']],
    );
    const turns = [
      explore,
      turn(2, { controller: 'need', plan: { ...good, layers: [['c1'], ['c2']] }, calls: [ok('c1', 'a')] }),
      turn(3, { controller: 'may', plan: replan, calls: [ok('c2', 'b'), failed('c3', 'c')] }),
      searched(4, ['d']),
      turn(5, { controller: 'answer', answer: 'x' }),
    ];
    const phases = phaseScores(turns, W, graph);
    assert.equal(phases.length, 1);
    const [first, second] = phases[0]!.windows;
    // Window 1 schedules c1 and c2; c1 ran in it, c2 only in the next window: 1 of 2.
    assert.equal(first!.scheduled, 2);
    close(first!.l4_ratio, 0.5);
    // Window 2 schedules c2 and c3 (c1 had succeeded): c2 succeeded, c3 failed.
    assert.equal(second!.scheduled, 2);
    close(second!.l4_ratio, 0.5);
    close(phases[0]!.score, (2 * first!.score + 2 * second!.score) / 4);
    assert.deepEqual(phases[0]!.turns, [2, 3]);
  });

  it('without a graph L2 and L3 are null, and the window scores w1 + w4·L4 rescaled to the full weight', () => {
    const [phase] = phaseScores(run(good, [ok('c1', 'a')], [failed('c2', 'b')]), W, undefined);
    assert.equal(phase!.l2, null);
    assert.equal(phase!.l3, null);
    close(phase!.score, (W.w1 + W.w4 * 0.5) / (W.w1 + W.w4));
  });

  it('no execution phase scores 0; the gate clip(R_ans, 0, 1) multiplies the phases', async () => {
    const base = { task: { id: 't', query: 'q' }, steps: [] } as Pick<Trajectory, 'task' | 'steps'>;
    const searchOnly = { ...base, answer: 'x', turns: [explore, turn(2, { controller: 'answer', answer: 'x' })] };
    const scored = (turns: TurnRecord[], verdicts: Verdicts) =>
      answerOutcome({ ...base, answer: 'x', turns }, { verdicts }).then((o) =>
        scoreTrajectory({ ...base, answer: 'x', turns }, o, graph),
      );
    const yes: Verdicts = { quality: 'YES', faithfulness: 'YES', utility: 'YES' };
    assert.equal((await scored(searchOnly.turns, yes)).r_phase, 0);
    const turns = run(good, [ok('c1', 'a')], [ok('c2', 'b')]);
    const full = await scored(turns, yes);
    assert.equal(full.gate, 1, 'R_ans 1.5 clips to 1');
    close(full.r_phase, 1);
    const half = await scored(turns, { ...yes, utility: 'NO' });
    assert.equal(half.gate, 0.5);
    close(half.r_phase, 0.5);
    const none = await scored(turns, { quality: 'NO', faithfulness: 'NO', utility: 'NO' });
    assert.equal(none.gate, 0);
    assert.equal(none.r_phase, 0);
  });
});

describe('R_traj (Eq. 6) and the answer sources (C.3)', () => {
  const turns = [
    searched(1, ['a', 'b', 'x']),
    turn(2, { controller: 'need', step: 2, calls: [ok('c1', 'a'), failed('c2', 'b')] }),
    turn(3, { controller: 'answer', answer: 'Rex is sold' }),
  ];
  const steps = [
    { step: 1, started_at: '', wall_ms: 0, actions: [], observations: [] },
    {
      step: 2,
      started_at: '',
      wall_ms: 0,
      actions: [],
      observations: [
        {
          type: 'tool_call' as const,
          id: 'c1',
          tool: 'a',
          status: 200,
          body: { name: 'Rex', status: 'sold' },
          source: 'synth' as const,
        },
        {
          type: 'tool_call' as const,
          id: 'c2',
          tool: 'b',
          status: 500,
          body: { detail: 'down' },
          source: 'rule' as const,
        },
      ],
    },
  ];
  const trajectory = {
    task: { id: 't', query: 'Is Rex sold?', reference_tools: ['a', 'b', 'c', 'd'], answer: ['Rex', 'sold'] },
    answer: 'Rex is sold',
    turns,
    steps,
  };

  it(
    'γe·search recall + γo·successful-call recall + γans·R_ans; ' + 'the expected answer scores R_ans by rule',
    async () => {
      const outcome = await answerOutcome(trajectory);
      assert.equal(outcome.source, 'rule');
      const rewards = scoreTrajectory(trajectory, outcome, undefined);
      assert.deepEqual(rewards.recall, { search: 0.5, call: 0.25 });
      assert.equal(rewards.pattern, '111');
      close(rewards.r_traj, 0.1 * 0.5 + 0.4 * 0.25 + 1.5);
    },
  );

  it('without reference tools R_traj is γans·R_ans; coefficients are overridable per episode', async () => {
    const bare = { ...trajectory, task: { id: 't', query: 'q', answer: 'Rex' }, reward: { gamma_ans: 2 } };
    const rewards = scoreTrajectory(bare, await answerOutcome(bare), undefined);
    assert.deepEqual(rewards.recall, { search: null, call: null });
    close(rewards.r_traj, 2 * 1.5);
    assert.equal(rewards.coefficients.gamma_ans, 2);
  });

  it(
    'a missing answer and an information-seeking answer without evidence are −0.5; ' +
      'given verdicts win over the rule; nothing to score is flagged',
    async () => {
      assert.deepEqual(await answerOutcome({ ...trajectory, answer: undefined }), { source: 'missing', r_ans: -0.5 });
      const noEvidence = {
        ...trajectory,
        turns: [turns[0]!, turn(2, { controller: 'answer', answer: 'Rex is sold' })],
      };
      assert.deepEqual(await answerOutcome(noEvidence), { source: 'no_evidence', r_ans: -0.5 });
      const given = await answerOutcome(trajectory, {
        verdicts: { quality: 'YES', faithfulness: 'NO', utility: 'YES' },
      });
      assert.equal(given.source, 'verdicts');
      assert.equal(given.r_ans, 0);
      const open = { ...trajectory, task: { id: 't', query: 'say hi' } };
      const unscored = await answerOutcome(open);
      assert.equal(unscored.source, 'unscored');
      assert.match(unscored.flagged!, /no judge/);
      const rewards = scoreTrajectory(open, unscored, undefined);
      assert.equal(rewards.r_traj, null);
      assert.equal(rewards.r_phase, null);
      assert.equal(rewards.gate, null);
      assert.ok(rewards.r_step! > 0, 'the step reward needs no answer');
    },
  );

  it('the judge is asked once more on 110, and a finished episode is judged once (memo)', async () => {
    const answers: Verdicts[] = [
      { quality: 'YES', faithfulness: 'YES', utility: 'NO' },
      { quality: 'YES', faithfulness: 'YES', utility: 'YES' },
    ];
    let asked = 0;
    const judge = {
      name: 'fake',
      judge: async () => ({ verdicts: answers[asked++]!, reason: 'r', model: 'm', prompt_version: 'v', attempts: 1 }),
    };
    const open = { ...trajectory, task: { id: 't', query: 'q' } };
    const memo = new Map();
    const first = await answerOutcome(open, { judge, memo });
    assert.equal(asked, 2);
    assert.equal(first.r_ans, 1.5);
    assert.equal(first.judge!.rejudged, true);
    const again = await answerOutcome(open, { judge, memo });
    assert.equal(asked, 2, 'memoized');
    assert.equal(again.r_ans, 1.5);
  });
});

describe('decoupled advantages (Eq. 7, C.4)', () => {
  const L = DEFAULT_COEFFICIENTS;
  it('standardizes each component in the group (sample SD, ε 1e-6) and weights them 1 : 0.5 : 0.25', () => {
    const group = [
      { r_step: 1, r_phase: 0, r_traj: 2 },
      { r_step: 0, r_phase: 0, r_traj: 0 },
    ];
    const [a, b] = groupAdvantages(group, L);
    // Two values x, y: (x − mean) / SD = ±1/√2 · … : (1 − 0.5) / (√0.5 + ε).
    const unit = 0.5 / (Math.sqrt(0.5) + 1e-6);
    close(a!.a_step, unit);
    close(b!.a_step, -unit);
    assert.equal(a!.a_phase, 0, 'zero variance gives 0');
    close(a!.a_traj, 1 / (Math.sqrt(2) + 1e-6));
    close(a!.advantage, 1.0 * a!.a_traj! + 0.5 * 0 + 0.25 * a!.a_step!);
  });

  it('decoupled differs from aggregated, which standardizes the weighted sum', () => {
    const group = [
      { r_step: 1, r_phase: 0, r_traj: 0 },
      { r_step: 0, r_phase: 0, r_traj: 0.1 },
      { r_step: 0.5, r_phase: 1, r_traj: 0.1 },
    ];
    const decoupled = groupAdvantages(group, L, 'decoupled').map((a) => a.advantage!);
    const aggregated = groupAdvantages(group, L, 'aggregated').map((a) => a.advantage!);
    const sums = group.map((r) => r.r_traj + 0.5 * r.r_phase + 0.25 * r.r_step);
    const mean = sums.reduce((x, y) => x + y) / 3;
    const sd = Math.sqrt(sums.reduce((s, v) => s + (v - mean) ** 2, 0) / 2);
    aggregated.forEach((value, i) => close(value, (sums[i]! - mean) / (sd + 1e-6), `aggregated ${i}`));
    assert.ok(
      decoupled.some((value, i) => Math.abs(value - aggregated[i]!) > 0.1),
      `${decoupled} vs ${aggregated}`,
    );
  });

  it('a zero-variance group, a group of one and flagged rollouts', () => {
    const same = { r_step: 0.5, r_phase: 0.2, r_traj: 1.1 };
    assert.deepEqual(
      groupAdvantages([same, same, same], L).map((a) => a.advantage),
      [0, 0, 0],
    );
    assert.deepEqual(groupAdvantages([same], L)[0], { a_step: 0, a_phase: 0, a_traj: 0, advantage: 0 });
    const [flagged, x, y] = groupAdvantages(
      [{ r_step: 1, r_phase: null, r_traj: null }, same, { ...same, r_traj: 0.1 }],
      L,
    );
    assert.deepEqual(flagged, { a_step: null, a_phase: null, a_traj: null, advantage: null });
    close(x!.a_traj! + y!.a_traj!, 0, 'the flagged rollout is left out of the mean');
  });

  it('a component null across the whole group (R_step of chat episodes) is left out, not every rollout', () => {
    const group = [
      { r_step: null, r_phase: 1, r_traj: 2 },
      { r_step: null, r_phase: 0, r_traj: 0 },
    ];
    for (const mode of ['decoupled', 'aggregated'] as const) {
      const [a, b] = groupAdvantages(group, L, mode);
      assert.ok(a!.advantage! > 0 && b!.advantage! < 0, `${mode}: ${JSON.stringify([a, b])}`);
      assert.equal(a!.a_step, null);
    }
    const [a] = groupAdvantages(group, L);
    close(a!.advantage, 1.0 * a!.a_traj! + 0.5 * a!.a_phase!);
    const [, partly] = groupAdvantages(
      [
        { r_step: 1, r_phase: 1, r_traj: 1 },
        { r_step: null, r_phase: 1, r_traj: 1 },
      ],
      L,
    );
    assert.equal(partly!.advantage, null, 'a null where others are scored is still a flagged rollout');
  });
});
