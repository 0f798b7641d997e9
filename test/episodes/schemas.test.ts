import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EpisodeError } from '../../src/episodes/errors.js';
import type { GroupSummary } from '../../src/episodes/groups.js';
import type {
  CreatedEpisode,
  EpisodeConfig,
  EpisodeSummary,
  RewardRequest,
  Trajectory,
  TurnPlan,
  TurnRecord,
  TurnRequest,
  TurnResult,
} from '../../src/wire/episodes.js';
import {
  Checker,
  parseAdvantages,
  parseConfig,
  parseGroup,
  parseRewardRequest,
  parseTurn,
  parseVerdicts,
} from '../../src/episodes/validate.js';
import { schemasDir } from '../../src/paths.js';
import type { RunStateView } from '../../src/protocol/state.js';
import type { Advantage, ComponentRewards } from '../../src/rl/advantages.js';
import type { Rewards } from '../../src/rl/rewards.js';
import { DEFAULT_COEFFICIENTS, type RewardCoefficients } from '../../src/wire/rewards.js';
import type { RunningServer } from '../../src/server/serve.js';
import { createAjv } from '../../src/library/ajv.js';
import { json, post, startEpisodeServer } from './fixture.js';

const TRAJECTORY = 'https://toolenv.dev/schemas/trajectory.schema.json';
const REWARDS = 'https://toolenv.dev/schemas/rewards.schema.json';
const read = (file: string) =>
  JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as {
    $id: string;
    $schema: string;
    $defs: Record<string, unknown>;
  };
const trajectorySchema = read('trajectory.schema.json');
const rewardsSchema = read('rewards.schema.json');
const ajv = createAjv();
ajv.addSchema(trajectorySchema);
ajv.addSchema(rewardsSchema);

const validator = (id: string, def: string) => {
  const validate = ajv.getSchema(`${id}#/$defs/${def}`);
  assert.ok(validate, `${id}#/$defs/${def} compiles`);
  return validate;
};
/** What travels: members set to undefined are left out, as on the wire. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
const valid = (id: string, def: string, given: unknown) => {
  const value = wire(given);
  const validate = validator(id, def);
  assert.ok(
    validate(value),
    `${def} should accept ${JSON.stringify(value).slice(0, 400)}: ${JSON.stringify(validate.errors)}`,
  );
};
const invalid = (id: string, def: string, given: unknown, why: string) => {
  const value = wire(given);
  const validate = validator(id, def);
  assert.ok(!validate(value), `${def} should refuse ${why}: ${JSON.stringify(value).slice(0, 400)}`);
};
const T = {
  valid: (def: string, value: unknown) => valid(TRAJECTORY, def, value),
  invalid: (def: string, value: unknown, why: string) => invalid(TRAJECTORY, def, value, why),
};
const R = {
  valid: (def: string, value: unknown) => valid(REWARDS, def, value),
  invalid: (def: string, value: unknown, why: string) => invalid(REWARDS, def, value, why),
};

/** Whether a request parser accepts a body (it throws EpisodeError 400 when not). */
const accepts = (parse: (body: unknown) => unknown, body: unknown): boolean => {
  try {
    parse(body);
    return true;
  } catch (error) {
    if (error instanceof EpisodeError) return false;
    throw error;
  }
};
/** The schema and the server's parser agree on a body. */
const agree = (id: string, def: string, parse: (body: unknown) => unknown, given: unknown, expected: boolean) => {
  const body = wire(given);
  const validate = validator(id, def);
  const schema = validate(body) as boolean;
  const server = accepts(parse, body);
  assert.equal(
    server,
    expected,
    `the server ${expected ? 'accepts' : 'refuses'} ${JSON.stringify(body).slice(0, 300)}`,
  );
  assert.equal(
    schema,
    expected,
    `${def} ${expected ? 'accepts' : 'refuses'} ${JSON.stringify(body).slice(0, 300)}: ` +
      `${JSON.stringify(validate.errors)}`,
  );
};

const known = () => true;
const task = {
  id: 't1',
  query: 'What is the weather in Paris?',
  reference_tools: ['weather_forecast'],
  answer: ['Paris', 'sunny'],
};
const counts = { turns: 2, steps: 1, actions: 1, searches: 1, calls: 0, failed_calls: 0, injected_errors: 0 };
const summary: EpisodeSummary = {
  id: 'e-1',
  seed: 7,
  error_rate: 0,
  max_steps: 50,
  protocol: 'paraact',
  k: 3,
  max_calls_per_turn: 3,
  max_turns: 15,
  finish: 'answer',
  answer: 'Sunny in Paris.',
  reward: { w1: 0.2, lambda_step: 0 },
  group: 'g-1',
  task,
  created_at: '2025-01-01T00:00:00.000Z',
  done: true,
  working_set: ['weather_forecast'],
  counts,
};
const created: CreatedEpisode = {
  ...summary,
  stop: ['<tool_response>', '<tools>', '<error>'],
  messages: [
    { role: 'system', content: 'You are a tool-using agent.' },
    { role: 'user', content: task.query },
  ],
};
const plan: TurnPlan = {
  phase: 'execution',
  valid: true,
  repeated: false,
  accepted: true,
  tools: ['weather_forecast'],
  calls: [{ id: 'w', tool: 'weather_forecast', depends_on: [] }],
  layers: [['w']],
};
const record: TurnRecord = {
  turn: 2,
  text: '<think>Call it.</think><plan>…</plan><tool_call>{"id": "w"}</tool_call>',
  well_formed: true,
  controller: 'need',
  plan,
  step: 2,
  searches: [],
  calls: [{ id: 'w', tool: 'weather_forecast', status: 429, ok: false, injected: 'rate_limit' }],
  not_run: [{ id: 'x', tool: 'air_quality', kind: 'deferred', reason: 'at most 1 calls per turn; call it next turn' }],
  observation: 'w (weather_forecast) failed: 429',
};
const hit = {
  id: 'weather_forecast',
  name: 'weather_forecast',
  description: 'Forecast.',
  category: 'weather',
  score: 11.5,
};
const state: RunStateView = {
  turn: 2,
  surfaced: ['weather_forecast'],
  hits: [hit],
  searches: [{ id: 's1', turn: 1, query: 'weather', k: 3, results: [hit] }],
  calls: [
    {
      id: 'w',
      tool: 'weather_forecast',
      turn: 2,
      arguments: { city: 'Paris' },
      status: 429,
      body: { title: 'Too Many Requests' },
      headers: { 'retry-after': '1' },
      ok: false,
      injected: 'rate_limit',
      error: 'rate limited',
    },
  ],
  notRun: [{ id: 'x', tool: 'air_quality', turn: 2, kind: 'deferred', reason: 'over the cap' }],
  plan: {
    turn: 2,
    plan: {
      phase: 'execution',
      tools: ['weather_forecast'],
      calls: [{ id: 'w', tool: 'weather_forecast', arguments: { city: 'Paris' }, depends_on: [] }],
    },
    layers: [['w']],
    nodes: [
      { id: 'w', tool: 'weather_forecast', arguments: { city: 'Paris' }, depends_on: [], deps: [], status: 'failed' },
    ],
  },
};
const turnResult: TurnResult = {
  turn: 2,
  observation: { role: 'user', content: 'w (weather_forecast) failed: 429' },
  done: false,
  step: 2,
  state,
};

const coefficients: RewardCoefficients = { ...DEFAULT_COEFFICIENTS };
const scored: Rewards = {
  r_step: 0.75,
  r_phase: 0.9,
  r_traj: 1.9,
  r_ans: 1.5,
  gate: 1,
  answer_source: 'judge',
  success: true,
  verdicts: { quality: 'YES', faithfulness: 'YES', utility: 'YES' },
  pattern: '111',
  steps: [
    { turn: 1, state: 'need', r_base: 1, r_plan: 1 },
    { turn: 2, state: 'answer', r_base: 1, r_plan: 0 },
  ],
  phases: [
    {
      turns: [2],
      l1: true,
      l2: true,
      l3: null,
      l4_ratio: 1,
      score: 0.9,
      windows: [{ turn: 2, scheduled: 1, l1: true, l2: true, l3: null, l4_ratio: 1, score: 0.9 }],
    },
  ],
  recall: { search: 1, call: 0.5 },
  graph: true,
  judge: {
    verdicts: { quality: 'YES', faithfulness: 'YES', utility: 'YES' },
    reason: 'Read off the results.',
    model: 'qwen',
    prompt_version: 'v1',
    attempts: 2,
    rejudged: true,
  },
  coefficients,
};
const flagged: Rewards = {
  r_step: 0.5,
  r_phase: null,
  r_traj: null,
  r_ans: null,
  gate: null,
  flagged: 'no way to score the answer',
  answer_source: 'unscored',
  success: null,
  steps: [{ turn: 1, state: 'answer', r_base: 1, r_plan: 0 }],
  phases: [],
  recall: { search: null, call: null },
  graph: false,
  coefficients,
};

describe('the published schemas', () => {
  it(
    'are draft 2020-12 with their ids, every definition compiles, ' +
      'and no name is defined in both (the OpenAPI document merges them)',
    () => {
      for (const schema of [trajectorySchema, rewardsSchema]) {
        assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
        for (const def of Object.keys(schema.$defs)) validator(schema.$id, def);
      }
      assert.equal(trajectorySchema.$id, TRAJECTORY);
      assert.equal(rewardsSchema.$id, REWARDS);
      const shared = Object.keys(rewardsSchema.$defs).filter((name) => name in trajectorySchema.$defs);
      assert.deepEqual(shared, []);
    },
  );
});

describe('trajectory.schema.json: text turns', () => {
  it('a summary carries the turn options, finish, answer, reward overrides and group', () => {
    T.valid('EpisodeSummary', summary);
    const { finish: _f, answer: _a, reward: _r, group: _g, ...plain } = summary;
    T.valid('EpisodeSummary', plain);
    T.invalid('EpisodeSummary', { ...summary, protocol: undefined }, 'a summary without its protocol');
    T.invalid('EpisodeSummary', { ...summary, finish: 'timeout' }, 'an unknown finish');
    T.invalid('EpisodeSummary', { ...summary, counts: { ...counts, turns: undefined } }, 'counts without turns');
    T.invalid('EpisodeSummary', { ...summary, reward: { w9: 1 } }, 'an unknown coefficient');
    T.invalid('EpisodeSummary', created, 'messages (only a CreatedEpisode has them)');
  });

  it('POST /v1/episodes answers a CreatedEpisode: the summary and the first messages', () => {
    T.valid('CreatedEpisode', created);
    T.valid('CreatedEpisode', { ...created, messages: created.messages.slice(0, 1) });
    T.invalid('CreatedEpisode', summary, 'a summary without messages');
    T.invalid(
      'CreatedEpisode',
      { ...created, messages: [{ role: 'assistant', content: 'hi' }] },
      'an assistant message',
    );
    T.invalid('CreatedEpisode', { ...created, extra: 1 }, 'an unknown member');
  });

  it('a trajectory holds its turns', () => {
    const trajectory: Trajectory = { ...summary, steps: [], turns: [record] };
    T.valid('Trajectory', trajectory);
    T.invalid('Trajectory', { ...summary, steps: [] }, 'a trajectory without turns');
  });

  it('TurnRecord and TurnPlan', () => {
    T.valid('TurnRecord', record);
    T.valid('TurnRecord', {
      turn: 1,
      text: 'oops',
      well_formed: false,
      controller: 'need',
      plan: { valid: false, repeated: false, accepted: false },
      rejected: ['no action'],
      searches: [],
      calls: [],
      not_run: [],
      observation: 'Rejected: no action',
    });
    T.valid('TurnPlan', {
      phase: 'exploration',
      valid: true,
      repeated: false,
      accepted: true,
      slots: ['weather forecast'],
    });
    T.invalid('TurnPlan', { phase: 'exploration', repeated: false, accepted: true }, 'a plan without valid');
    T.invalid('TurnPlan', { ...plan, phase: 'planning' }, 'an unknown phase');
    T.invalid('TurnRecord', { ...record, controller: 'maybe' }, 'an unknown controller state');
    T.invalid(
      'TurnRecord',
      { ...record, not_run: [{ id: 'x', tool: 't', kind: 'later', reason: '' }] },
      'an unknown not-run kind',
    );
    T.invalid('TurnRecord', { ...record, calls: [{ id: 'w', tool: 't', status: 200 }] }, 'a call without ok');
    T.invalid('TurnRecord', { ...record, observation: undefined }, 'a record without its observation');
  });

  it('TurnRequest accepts exactly what the server does', () => {
    const cases: [unknown, boolean][] = [
      [{ text: '<think>x</think><answer>y</answer>' }, true],
      [{ text: '' }, true],
      [{ text: 'x', state: true }, true],
      [{ text: 'x', state: false }, true],
      [{ text: 'x'.repeat(200_000) }, true],
      [{ text: 'x'.repeat(200_001) }, false],
      [{}, false],
      [{ text: 3 }, false],
      [{ text: 'x', state: 'yes' }, false],
      [{ text: 'x', extra: 1 }, false],
      [['x'], false],
      [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'search_tool', arguments: '{"query": "x"}' } }],
          },
        },
        true,
      ],
      [{ message: { content: 'The answer.', refusal: null, annotations: [] }, state: true }, true],
      [
        {
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: 'hi' }],
            tool_calls: [{ id: 'a', function: { name: 'f', arguments: { x: 1 } } }],
          },
        },
        true,
      ],
      [{ message: { role: 'user', content: 'x' } }, false],
      [{ message: { content: 'x', tool_calls: [{ function: { name: 'f' } }] } }, false],
      [{ message: { content: 'x', tool_calls: [{ id: 'a', function: { name: 'f', arguments: 3 } }] } }, false],
      [{ message: { content: 'x', extra: 1 } }, false],
      [{ text: 'x', message: { content: 'x' } }, false],
    ];
    for (const [body, expected] of cases) agree(TRAJECTORY, 'TurnRequest', parseTurn, body, expected);
    const typed: TurnRequest = { text: 'x', state: true };
    T.valid('TurnRequest', typed);
  });

  it('TurnResult, with and without the run state', () => {
    T.valid('TurnResult', turnResult);
    T.valid('TurnResult', {
      turn: 3,
      observation: { role: 'user', content: '' },
      done: true,
      finish: 'answer',
      answer: 'Sunny.',
    });
    T.valid('TurnResult', {
      turn: 1,
      observation: { role: 'user', content: 'Rejected' },
      done: false,
      rejected: ['no <think>'],
    });
    T.valid('RunStateView', { turn: 0, surfaced: [], hits: [], searches: [], calls: [], notRun: [] });
    T.invalid(
      'TurnResult',
      { ...turnResult, observation: { role: 'assistant', content: 'x' } },
      'an observation not from the user',
    );
    T.invalid('TurnResult', { ...turnResult, finish: 'done' }, 'an unknown finish');
    T.invalid('TurnResult', { ...turnResult, step: 0 }, 'step 0');
    T.invalid('TurnResult', { ...turnResult, state: { ...state, results: [] } }, 'a run state with an unknown member');
    T.invalid(
      'TurnResult',
      {
        ...turnResult,
        state: { ...state, plan: { ...state.plan!, nodes: [{ ...state.plan!.nodes[0]!, status: 'running' }] } },
      },
      'an unknown node status',
    );
  });

  it('EpisodeConfig accepts exactly what the server does (tools aside: the library decides those)', () => {
    const parse = (body: unknown) => parseConfig(body, known);
    const cases: [unknown, boolean][] = [
      [{}, true],
      [
        {
          protocol: 'react',
          k: 10,
          max_calls_per_turn: 64,
          max_turns: 1000,
          reward: { w1: 0, gamma_ans: 2, lambda_step: 0.5 },
        },
        true,
      ],
      [{ protocol: 'parallel', k: 1, max_calls_per_turn: 1, max_turns: 1, reward: {} }, true],
      [{ task: { id: 't', query: 'q', answer: 'Paris' } }, true],
      [{ task: { id: 't', query: '', answer: ['Paris', 'sunny'] } }, true],
      [{ protocol: 'cot' }, false],
      [{ protocol: null }, false],
      [{ k: 0 }, false],
      [{ k: 101 }, false],
      [{ k: 2.5 }, false],
      [{ max_calls_per_turn: 65 }, false],
      [{ max_turns: 0 }, false],
      [{ max_turns: 1001 }, false],
      [{ reward: { w5: 1 } }, false],
      [{ reward: { w1: -0.1 } }, false],
      [{ reward: { w1: '1' } }, false],
      [{ reward: [] }, false],
      [{ task: { id: 't', query: 'q', answer: '' } }, false],
      [{ task: { id: 't', query: 'q', answer: '   ' } }, false],
      [{ task: { id: 't', query: 'q', answer: [] } }, false],
      [{ task: { id: 't', query: 'q', answer: ['Paris', ' '] } }, false],
      [{ task: { id: 't', query: 'q', answer: 3 } }, false],
      [{ task: { id: ' ', query: 'q' } }, false],
      [{ turns: 3 }, false],
    ];
    for (const [body, expected] of cases) agree(TRAJECTORY, 'EpisodeConfig', parse, body, expected);
    const typed: EpisodeConfig = {
      protocol: 'paraact',
      k: 3,
      max_calls_per_turn: 3,
      max_turns: 15,
      reward: { w4: 0.5 },
      task,
    };
    T.valid('EpisodeConfig', typed);
  });
});

describe('rewards.schema.json', () => {
  it('RewardRequest: verdicts case-insensitive, a judge spec or false, as the server reads them', () => {
    const cases: [unknown, boolean][] = [
      [{}, true],
      [{ verdicts: { quality: 'YES', faithfulness: 'PARTIAL', utility: 'NO' } }, true],
      [{ verdicts: { quality: 'yes', faithfulness: 'Partial', utility: 'nO' } }, true],
      [{ judge: false }, true],
      [{ judge: 'openai:qwen@http://localhost:8000/v1' }, true],
      [{ verdicts: { quality: 'YES', faithfulness: 'YES', utility: 'MAYBE' } }, false],
      [{ verdicts: { quality: 'YES', faithfulness: 'YES' } }, false],
      [{ verdicts: { quality: 'YES', faithfulness: 'YES', utility: 'YES', style: 'YES' } }, false],
      [{ verdicts: { quality: 1, faithfulness: 'YES', utility: 'YES' } }, false],
      [{ verdicts: { quality: ' YES', faithfulness: 'YES', utility: 'YES' } }, false],
      [{ judge: true }, false],
      [{ judge: '' }, false],
      [{ judge: '   ' }, false],
      [{ judge: ' openai:@https://judge.example/v1 ' }, true],
      [{ judge: 'qwen@http://localhost:8000/v1' }, false],
      [{ judge: 'openai:qwen' }, false],
      [{ verdict: {} }, false],
      [[], false],
    ];
    for (const [body, expected] of cases) agree(REWARDS, 'RewardRequest', parseRewardRequest, body, expected);
    const typed: RewardRequest = { verdicts: { quality: 'YES', faithfulness: 'NO', utility: 'PARTIAL' }, judge: false };
    R.valid('RewardRequest', typed);
  });

  it('VerdictInput matches what toUpperCase makes a verdict of, no more', () => {
    const check = new Checker();
    const server = (verdict: string) =>
      parseVerdicts({ quality: verdict, faithfulness: 'YES', utility: 'YES' }, '', check) !== undefined;
    for (const verdict of [
      'YES',
      'yes',
      'Yes',
      'partial',
      'PARTIAL',
      'no',
      'No',
      'NO',
      'part\u0131al',
      'ye\u017f',
      'MAYBE',
      'YESS',
      'N0',
      '',
      'y',
      'ñO',
    ]) {
      const schema = validator(REWARDS, 'VerdictInput')(verdict) as boolean;
      assert.equal(schema, server(verdict), `${JSON.stringify(verdict)}: schema ${schema}, server ${server(verdict)}`);
    }
  });

  it('Verdicts, as answered, are upper case', () => {
    R.valid('Verdicts', { quality: 'YES', faithfulness: 'PARTIAL', utility: 'NO' });
    R.invalid('Verdicts', { quality: 'MAYBE', faithfulness: 'YES', utility: 'YES' }, "the verdict 'MAYBE'");
    R.invalid(
      'Verdicts',
      { quality: 'yes', faithfulness: 'YES', utility: 'YES' },
      'a lower-case verdict (the server answers them upper-cased)',
    );
  });

  it('RewardCoefficients: all ten, known names, non-negative', () => {
    R.valid('RewardCoefficients', coefficients);
    R.invalid('RewardCoefficients', { ...coefficients, w5: 0.1 }, 'an unknown coefficient');
    R.invalid('RewardCoefficients', { ...coefficients, gamma_o: -1 }, 'a negative coefficient');
    const { lambda_step: _, ...nine } = coefficients;
    R.invalid('RewardCoefficients', nine, 'a missing coefficient');
  });

  it('Rewards: scored, or flagged with null rewards', () => {
    R.valid('Rewards', scored);
    R.valid('Rewards', flagged);
    R.valid('Rewards', { ...flagged, answer_source: 'judge', flagged: 'the judge failed: timeout' });
    R.valid('Rewards', {
      ...scored,
      answer_source: 'missing',
      r_ans: -0.5,
      gate: 0,
      r_phase: 0,
      r_traj: -0.4,
      verdicts: undefined,
      pattern: undefined,
      judge: undefined,
    });
    const { flagged: _, ...unflagged } = flagged;
    R.invalid('Rewards', unflagged, 'null rewards without flagged');
    R.invalid('Rewards', { ...scored, flagged: 'why' }, 'flagged with scored rewards');
    R.invalid('Rewards', { ...flagged, r_traj: 0.5 }, 'a flagged rollout with an r_traj');
    R.invalid('Rewards', { ...scored, r_ans: 1 }, 'an R_ans Table 9 does not give');
    R.invalid('Rewards', { ...scored, pattern: undefined }, 'verdicts without their pattern');
    R.invalid('Rewards', { ...scored, steps: [{ turn: 1, state: 'need', r_base: 2, r_plan: 0 }] }, 'r_base 2');
    R.invalid(
      'Rewards',
      { ...scored, steps: [{ turn: 1, state: 'unsure', r_base: 1, r_plan: 0 }] },
      'an unknown controller state',
    );
    R.invalid('Rewards', { ...scored, phases: [{ ...scored.phases[0]!, windows: [] }] }, 'a phase without windows');
    R.invalid('Rewards', { ...scored, judge: { ...scored.judge!, attempts: 0 } }, 'a judge that took no attempt');
    R.invalid('Rewards', { ...scored, answer_source: 'oracle' }, 'an unknown answer source');
    R.invalid('Rewards', { ...scored, coefficients: { ...coefficients, w9: 1 } }, 'an unknown coefficient');
  });

  it('GroupRequest accepts exactly what the server does', () => {
    const parse = (body: unknown) => parseGroup(body, known);
    const cases: [unknown, boolean][] = [
      [{ n: 8, task }, true],
      [
        { n: 1, task: { id: 't', query: 'q' }, seed: 3, protocol: 'react', max_turns: 5, reward: { lambda_phase: 1 } },
        true,
      ],
      [{ n: 256, task }, true],
      [{ n: 0, task }, false],
      [{ n: 257, task }, false],
      [{ n: 2.5, task }, false],
      [{ task }, false],
      [{ n: 8 }, false],
      [{ n: 8, task, k: 0 }, false],
      [{ n: 8, task, groups: 2 }, false],
    ];
    for (const [body, expected] of cases) agree(REWARDS, 'GroupRequest', parse, body, expected);
  });

  it('GroupSummary: members as created, or as summaries', () => {
    const group: GroupSummary = {
      id: 'g-1',
      n: 2,
      seed: 7,
      config: { seed: 7, task },
      episodes: [created, { ...created, id: 'e-2' }],
      gone: [],
    };
    R.valid('GroupSummary', group);
    R.valid('GroupSummary', { ...group, episodes: [summary], gone: ['e-2'] });
    R.invalid('GroupSummary', { ...group, episodes: [] }, 'a group with no live member');
    R.invalid(
      'GroupSummary',
      { ...group, episodes: [{ ...summary, group: undefined }] },
      'a member that names no group',
    );
    R.invalid('GroupSummary', { ...group, config: { task } }, 'a config without its seed');
    R.invalid('GroupSummary', { ...group, config: { seed: 7, task, n: 2 } }, 'n inside the config');
  });

  it('GroupAdvantages: decoupled with a flagged member, aggregated without components', () => {
    const member = (id: string, a: Advantage, r: ComponentRewards, extra: object = {}) => ({
      id,
      ...r,
      ...a,
      ...extra,
    });
    const advantages = {
      id: 'g-1',
      mode: 'decoupled',
      episodes: [
        member(
          'e-1',
          { a_step: 0.7, a_phase: 0.7, a_traj: 0.7, advantage: 1.2 },
          { r_step: 0.5, r_phase: 0.2, r_traj: 1 },
        ),
        member(
          'e-2',
          { a_step: null, a_phase: null, a_traj: null, advantage: null },
          { r_step: 1, r_phase: null, r_traj: null },
          { flagged: 'the judge failed' },
        ),
        member(
          'e-3',
          { a_step: -0.7, a_phase: -0.7, a_traj: -0.7, advantage: -1.2 },
          { r_step: 0.25, r_phase: 0, r_traj: -0.5 },
        ),
      ],
    };
    R.valid('GroupAdvantages', advantages);
    R.valid('GroupAdvantages', {
      ...advantages,
      mode: 'aggregated',
      episodes: advantages.episodes.map((e) => ({ ...e, a_step: null, a_phase: null, a_traj: null })),
    });
    R.invalid('GroupAdvantages', { ...advantages, mode: 'aggregated' }, 'components in aggregated mode');
    R.invalid('GroupAdvantages', { ...advantages, mode: 'summed' }, 'an unknown mode');
    R.invalid(
      'GroupAdvantages',
      { ...advantages, episodes: [{ ...advantages.episodes[1]!, advantage: 0.3 }] },
      'a flagged member with an advantage',
    );
    R.invalid(
      'GroupAdvantages',
      { ...advantages, episodes: [{ ...advantages.episodes[0]!, r_traj: null }] },
      'null rewards without flagged',
    );
    R.invalid(
      'GroupAdvantages',
      { ...advantages, episodes: [{ ...advantages.episodes[0]!, extra: 1 }] },
      'an unknown member',
    );
  });

  it('AdvantagesRequest accepts exactly what the server does', () => {
    const rollouts = [
      { r_step: 0.5, r_phase: 0.2, r_traj: 1 },
      { r_step: 1, r_phase: null, r_traj: null },
    ];
    const cases: [unknown, boolean][] = [
      [{ groups: [rollouts] }, true],
      [
        {
          groups: [rollouts, [{ r_step: null, r_phase: null, r_traj: null }]],
          mode: 'aggregated',
          lambda: { lambda_traj: 2, lambda_phase: 0, lambda_step: 1 },
        },
        true,
      ],
      [{ groups: [rollouts], mode: 'decoupled', lambda: {} }, true],
      [{ groups: [rollouts], mode: null }, false],
      [{ groups: [] }, false],
      [{ groups: [[]] }, false],
      [{ groups: rollouts }, false],
      [{ groups: [[{ r_step: 0.5, r_phase: 0.2 }]] }, false],
      [{ groups: [[{ r_step: 0.5, r_phase: 0.2, r_traj: '1' }]] }, false],
      [{ groups: [[{ r_step: 0.5, r_phase: 0.2, r_traj: 1, r_ans: 1 }]] }, false],
      [{ groups: [rollouts], mode: 'summed' }, false],
      [{ groups: [rollouts], lambda: { w1: 0.1 } }, false],
      [{ groups: [rollouts], lambda: { lambda_fun: 1 } }, false],
      [{ groups: [rollouts], lambda: { lambda_step: -1 } }, false],
      [{ groups: [rollouts], extra: true }, false],
      [{}, false],
    ];
    for (const [body, expected] of cases) agree(REWARDS, 'AdvantagesRequest', parseAdvantages, body, expected);
  });

  it('AdvantagesResult', () => {
    const advantages: Advantage[] = [
      { a_step: 0.7, a_phase: 0.7, a_traj: 0.7, advantage: 1.2 },
      { a_step: null, a_phase: null, a_traj: null, advantage: null },
    ];
    R.valid('AdvantagesResult', { mode: 'decoupled', groups: [advantages] });
    R.valid('AdvantagesResult', {
      mode: 'aggregated',
      groups: [[{ a_step: null, a_phase: null, a_traj: null, advantage: 0.4 }]],
    });
    R.invalid(
      'AdvantagesResult',
      { mode: 'decoupled', groups: [[{ a_step: 0.7, a_phase: 0.7, a_traj: 0.7 }]] },
      'an advantage without its sum',
    );
    R.invalid('AdvantagesResult', { groups: [advantages] }, 'a result without its mode');
  });
});

describe('the schemas describe what the server answers', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await startEpisodeServer();
    url = server.url;
  });
  after(() => server.close());

  const explore =
    '<think>Search first.</think>\n<plan>{"phase": "exploration", "slots": [{"capability": "weather", "query": ' +
    '"weather forecast for a city"}]}</plan>\n<search_tool>weather forecast for a city</search_tool>';
  const execute =
    '<think>Call it.</think>\n<plan>{"phase": "execution", "tools": ["weather_forecast"], "calls": [{"id": "w", ' +
    '"tool": "weather_forecast", "arguments": {"city": "Paris"}}]}</plan>\n<tool_call>{"id": "w"}</tool_call>';
  const answer = '<think>Done.</think>\n<answer>The forecast for Paris is in.</answer>';

  it('a text-turn episode: created, its turns, its trajectory and its rewards', async () => {
    const created = await json(
      await post(`${url}/v1/episodes`, {
        task: { id: 't', query: 'Weather in Paris?', reference_tools: ['weather_forecast'], answer: 'Paris' },
        max_turns: 6,
        reward: { w1: 0.2 },
      }),
      201,
    );
    T.valid('CreatedEpisode', created);
    for (const text of [explore, 'no tags at all', execute, answer])
      T.valid('TurnResult', await json(await post(`${url}/v1/episodes/${created.id}/turns`, { text, state: true })));
    const trajectory = await json(await fetch(`${url}/v1/episodes/${created.id}`));
    T.valid('Trajectory', trajectory);
    assert.equal(trajectory.turns.length, 4);
    R.valid('Rewards', await json(await fetch(`${url}/v1/episodes/${created.id}/rewards`)));
    R.valid(
      'Rewards',
      await json(
        await post(`${url}/v1/episodes/${created.id}/rewards`, {
          verdicts: { quality: 'yes', faithfulness: 'partial', utility: 'NO' },
        }),
      ),
    );

    const unscored = await json(await post(`${url}/v1/episodes`, { task: { id: 'u', query: 'Say hi.' } }), 201);
    await json(await post(`${url}/v1/episodes/${unscored.id}/turns`, { text: '<think>x</think><answer>hi</answer>' }));
    const rewards = await json(await fetch(`${url}/v1/episodes/${unscored.id}/rewards`));
    assert.equal(rewards.r_ans, null);
    R.valid('Rewards', rewards);
    T.valid('EpisodeSummary', await json(await fetch(`${url}/v1/episodes/${unscored.id}`, { method: 'DELETE' })));
  });

  it(
    'a chat episode: created with its functions, ' + 'its turns, its trajectory and its rewards (R_step null)',
    async () => {
      const created = await json(
        await post(`${url}/v1/episodes`, {
          protocol: 'chat',
          tool_parser: 'hermes',
          task: { id: 't', query: 'Weather in Paris?', reference_tools: ['weather_forecast'], answer: 'Paris' },
          max_turns: 4,
        }),
        201,
      );
      T.valid('CreatedEpisode', created);
      const call = (name: string, args: unknown) =>
        `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
      for (const body of [
        { text: call('search_tool', { query: 'weather forecast' }) },
        { text: call('nope', {}) },
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'w', type: 'function', function: { name: 'weather_forecast', arguments: '{"city": "Paris"}' } },
            ],
          },
          state: true,
        },
        { message: { role: 'assistant', content: 'The forecast for Paris is in.' } },
      ]) {
        T.valid('TurnResult', await json(await post(`${url}/v1/episodes/${created.id}/turns`, body)));
      }
      T.valid('Trajectory', await json(await fetch(`${url}/v1/episodes/${created.id}`)));
      const rewards = await json(await fetch(`${url}/v1/episodes/${created.id}/rewards`));
      assert.equal(rewards.r_step, null);
      R.valid('Rewards', rewards);
    },
  );

  it('a group, its advantages in both modes, and POST /v1/advantages', async () => {
    const group = await json(
      await post(`${url}/v1/groups`, {
        n: 3,
        task: { id: 't', query: 'Weather in Paris?', answer: 'Paris' },
        max_turns: 3,
      }),
      201,
    );
    R.valid('GroupSummary', group);
    await json(await post(`${url}/v1/episodes/${group.episodes[0].id}/turns`, { text: explore }));
    R.valid('GroupSummary', await json(await fetch(`${url}/v1/groups/${group.id}`)));
    for (const mode of ['decoupled', 'aggregated'])
      R.valid('GroupAdvantages', await json(await fetch(`${url}/v1/groups/${group.id}/advantages?mode=${mode}`)));
    R.valid('GroupSummary', await json(await fetch(`${url}/v1/groups/${group.id}`, { method: 'DELETE' })));
    const request = {
      groups: [
        [
          { r_step: 0.5, r_phase: 0.2, r_traj: 1 },
          { r_step: 1, r_phase: null, r_traj: null },
          { r_step: 0, r_phase: 0, r_traj: -0.5 },
        ],
      ],
      mode: 'aggregated',
    };
    R.valid('AdvantagesResult', await json(await post(`${url}/v1/advantages`, request)));
  });

  it('a group of chat episodes: its advantages leave out R_step, which no member has', async () => {
    const group = await json(
      await post(`${url}/v1/groups`, {
        n: 2,
        protocol: 'chat',
        task: { id: 't', query: 'Weather in Paris?', answer: 'Paris' },
        max_turns: 3,
      }),
      201,
    );
    const search = {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'search_tool', arguments: '{"query": "weather forecast"}' } },
        ],
      },
    };
    await json(await post(`${url}/v1/episodes/${group.episodes[0].id}/turns`, search));
    await json(
      await post(`${url}/v1/episodes/${group.episodes[0].id}/turns`, {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'w', type: 'function', function: { name: 'weather_forecast', arguments: '{"city": "Paris"}' } },
          ],
        },
      }),
    );
    await json(
      await post(`${url}/v1/episodes/${group.episodes[0].id}/turns`, {
        message: { role: 'assistant', content: 'Paris: sunny.' },
      }),
    );
    await json(
      await post(`${url}/v1/episodes/${group.episodes[1].id}/turns`, {
        message: { role: 'assistant', content: 'No idea.' },
      }),
    );
    const advantages = await json(await fetch(`${url}/v1/groups/${group.id}/advantages`));
    R.valid('GroupAdvantages', advantages);
    const [solved, guessed] = advantages.episodes as Record<string, any>[];
    assert.deepEqual([solved!.r_step, solved!.a_step, guessed!.a_step], [null, null, null]);
    assert.ok(solved!.advantage > 0 && guessed!.advantage < 0, JSON.stringify(advantages.episodes));
  });
});
