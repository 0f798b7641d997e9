import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPolicy } from '../../src/agent/policies/create.js';
import { runAgent } from '../../src/agent/run.js';
import type { AgentName, AgentRun, AgentTask, Policy } from '../../src/agent/types.js';
import type { RunningServer } from '../../src/server/serve.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { startTestServer } from '../server/helpers.js';
import { faultyProxy } from './proxy.js';
import { freePort } from '../../src/server/free-port.js';

/**
 * A real ToolEnv server over the retrieval fixture library (petstore, weather, email, finance, text tools), answering
 * with examples and the synthesizer.
 */
let server: RunningServer;
let heuristic: Policy;
before(async () => {
  server = await startTestServer({ library: writeRetrievalLibrary(), responders: [examplesResponder, synthResponder] });
  heuristic = await createPolicy('heuristic');
});
after(() => server.close());

const TASKS: AgentTask[] = [
  {
    id: 'pet-and-weather',
    query: 'Add a pet named "Rex", then find the pet by its id, and get the weather forecast for "Paris" for 3 days',
    reference_tools: ['petstore_test__addPet', 'petstore_test__getPetById', 'weather_forecast'],
    answer: 'Rex',
  },
  {
    id: 'money',
    query: 'Convert 100 USD to EUR and get the latest stock price quote for "AAPL"',
    reference_tools: ['convert_currency', 'stock-quote'],
  },
  {
    id: 'mail',
    query: 'Send an email to bob@example.com with subject "Lunch", then translate "good morning" into French',
    reference_tools: ['sendEmail', 'translateText'],
  },
];

const run = (
  agent: AgentName,
  task: AgentTask,
  extra: Partial<Parameters<typeof runAgent>[0]> = {},
): Promise<AgentRun> =>
  runAgent({ server: server.url, agent, policy: heuristic, task, seed: 1, errorRate: 0, ...extra });

test(
  'heuristic ParaAct end to end: parallel search, ' +
    'a DAG with a reference, layers run together, an answer, the trajectory',
  async () => {
    const result = await run('paraact', TASKS[0]!);
    assert.equal(result.finish, 'answer', result.error);
    assert.equal(result.agent, 'paraact');
    assert.equal(result.policy, 'heuristic');
    assert.equal(result.task_id, 'pet-and-weather');
    // Search all three slots; run addPet and the forecast together; then getPetById with the new pet's id; answer.
    assert.equal(result.turns, 4);
    assert.equal(result.actions, 6);
    assert.deepEqual(
      result.calls.map((c) => [c.turn, c.tool, c.ok]),
      [
        [2, 'petstore_test__addPet', true],
        [2, 'weather_forecast', true],
        [3, 'petstore_test__getPetById', true],
      ],
    );
    for (const tool of TASKS[0]!.reference_tools!) assert.ok(result.surfaced.includes(tool), tool);
    assert.match(result.answer!, /Rex/);

    // The reference was bound: getPetById got the id addPet returned, and world state answered it.
    const steps = result.trajectory!.steps;
    assert.equal(steps.length, 3);
    const created = steps[1]!.observations.find((o) => o.type === 'tool_call' && o.tool === 'petstore_test__addPet');
    const lookup = steps[2]!.actions[0]!;
    assert.ok(created?.type === 'tool_call' && lookup.type === 'tool_call');
    assert.equal(lookup.arguments.petId, (created.body as { id: number }).id);
    assert.deepEqual(result.trajectory!.counts, {
      turns: 4,
      steps: 3,
      actions: 6,
      searches: 3,
      calls: 3,
      failed_calls: 0,
      injected_errors: 0,
    });
    assert.equal(result.trajectory!.seed, 1);
    assert.equal(result.seed, 1);
    // The episode's step limit is the turn cap (a turn is at most one step), not the server's default of 50.
    assert.equal(result.trajectory!.max_steps, 15);
    assert.deepEqual(result.trajectory!.task, {
      id: 'pet-and-weather',
      query: TASKS[0]!.query,
      reference_tools: TASKS[0]!.reference_tools,
      answer: TASKS[0]!.answer,
    });
    // The server scored the run: the expected answer by rule, the plan turns by Table 8.
    assert.equal(result.rewards!.answer_source, 'rule');
    assert.equal(result.rewards!.r_ans, 1.5);
    assert.deepEqual(
      result.rewards!.steps.map((s) => s.state),
      ['need', 'need', 'may', 'answer'],
    );

    // Messages: system prompt, task, then one assistant message and one observation per turn but the last.
    assert.equal(result.messages[0]!.role, 'system');
    assert.match(result.messages[0]!.content, /Exploration and Execution/);
    assert.equal(result.messages.length, 2 + 2 * result.turns - 1);
    assert.match(result.messages[2]!.content, /<plan>\{"phase":"exploration"/);
    assert.match(result.messages[4]!.content, /<plan>\{"phase":"execution".*"petId":\{"\$ref":"c1\.body\.id"\}/);
    assert.ok(result.tokens.prompt > 0 && result.tokens.completion > 0);

    // The episode is gone once the run has reported.
    assert.equal((await fetch(`${server.url}/v1/episodes/${result.episode_id}`)).status, 404);
  },
);

test('heuristic ReAct end to end: one action per turn, upstream values copied into later calls', async () => {
  const result = await run('react', TASKS[0]!);
  assert.equal(result.finish, 'answer', result.error);
  assert.equal(result.turns, 7);
  assert.equal(result.actions, 6);
  for (const step of result.trajectory!.steps) assert.equal(step.actions.length, 1);
  const calls = result.trajectory!.steps.flatMap((s) => s.actions).filter((a) => a.type === 'tool_call');
  assert.equal(typeof calls[1]!.arguments.petId, 'number');
  assert.doesNotMatch(result.messages[0]!.content, /<plan>/);
});

test(
  'heuristic Parallel end to end: every call at once, ' +
    'the dependent one sent unresolved fails validation and is sent again',
  async () => {
    const result = await run('parallel', TASKS[0]!);
    assert.equal(result.finish, 'answer', result.error);
    const [, callStep, retryStep] = result.trajectory!.steps;
    assert.equal(callStep!.actions.length, 3);
    const blind = callStep!.actions.find((a) => a.type === 'tool_call' && a.tool === 'petstore_test__getPetById');
    assert.ok(blind?.type === 'tool_call');
    assert.deepEqual(blind.arguments, { petId: { $ref: 'c1.body.id' } });
    assert.deepEqual(
      result.calls.filter((c) => c.tool === 'petstore_test__getPetById').map((c) => [c.status, c.ok]),
      [
        [400, false],
        [200, true],
      ],
    );
    assert.equal(retryStep!.actions.length, 1);
    assert.equal(result.trajectory!.counts.failed_calls, 1);
  },
);

test(
  'issue #7: heuristic ParaAct averages more than one action per ' +
    'turn and fewer turns than heuristic ReAct on the same tasks',
  async () => {
    const totals: Record<AgentName, { turns: number; actions: number; runs: number }> = {
      paraact: { turns: 0, actions: 0, runs: 0 },
      react: { turns: 0, actions: 0, runs: 0 },
      parallel: { turns: 0, actions: 0, runs: 0 },
      chat: { turns: 0, actions: 0, runs: 0 },
    };
    for (const agent of ['paraact', 'react', 'parallel', 'chat'] as const) {
      for (const task of TASKS) {
        const result = await run(agent, task);
        assert.equal(result.finish, 'answer', `${agent} ${task.id}: ${result.error ?? ''}`);
        for (const tool of task.reference_tools!)
          assert.ok(
            result.calls.some((c) => c.tool === tool && c.ok),
            `${agent} ${task.id} calls ${tool}`,
          );
        totals[agent].turns += result.turns;
        totals[agent].actions += result.actions;
        totals[agent].runs++;
      }
    }
    const perTurn = (a: AgentName) => totals[a].actions / totals[a].turns;
    const turns = (a: AgentName) => totals[a].turns / totals[a].runs;
    assert.ok(perTurn('paraact') > 1, `ParaAct: ${perTurn('paraact')} actions per turn`);
    assert.ok(perTurn('react') <= 1, `ReAct: ${perTurn('react')} actions per turn`);
    assert.ok(turns('paraact') < turns('react'), `turns: ParaAct ${turns('paraact')}, ReAct ${turns('react')}`);
    // Native tool calling sends a layer's calls together too: as parallel as ParaAct, without its plans.
    assert.ok(perTurn('chat') > 1, `chat: ${perTurn('chat')} actions per turn`);
    assert.ok(turns('chat') < turns('react'), `turns: chat ${turns('chat')}, ReAct ${turns('react')}`);
  },
);

test(
  'every call failing with injected errors: rate limits and ' +
    'outages are retried once, the run still ends with an answer',
  async () => {
    for (const agent of ['paraact', 'react', 'parallel'] as const) {
      const result = await run(agent, TASKS[0]!, { errorRate: 1, seed: 3 });
      assert.equal(result.finish, 'answer', `${agent}: ${result.error ?? ''}`);
      assert.ok(result.turns <= 15);
      assert.ok(result.calls.every((c) => !c.ok));
      // Every valid call met an injected error; Parallel's dependency-blind call failed validation before injection.
      assert.equal(
        result.trajectory!.counts.injected_errors,
        result.calls.filter((c) => c.status !== 400).length,
        agent,
      );
      const byTool = new Map<string, typeof result.calls>();
      for (const call of result.calls) byTool.set(call.tool, [...(byTool.get(call.tool) ?? []), call]);
      for (const [tool, calls] of byTool) {
        assert.ok(calls.length <= 2, `${agent}: ${tool} called ${calls.length} times`);
        if ([429, 502, 503, 504].includes(calls[0]!.status))
          assert.equal(calls.length, 2, `${agent}: ${tool} is retried after ${calls[0]!.status}`);
      }
      assert.match(result.answer!, /not done/);
    }
  },
);

test(
  'the turn cap ends a run that never answers; a policy that ' +
    'throws ends it as an error; both still report the trajectory',
  async () => {
    const chatty: Policy = {
      name: 'chatty',
      next: async () => ({ text: 'Let me think about it.', usage: { prompt: 1, completion: 1 } }),
    };
    const capped = await runAgent({
      server: server.url,
      agent: 'paraact',
      policy: chatty,
      task: TASKS[1]!,
      maxTurns: 3,
    });
    assert.equal(capped.finish, 'turn_cap');
    assert.equal(capped.turns, 3);
    assert.equal(capped.actions, 0);
    assert.deepEqual(capped.tokens, { prompt: 3, completion: 3 });
    assert.match(capped.messages[3]!.content, /<error>\nYour last message was not run:\n- no action/);
    assert.equal(capped.trajectory!.counts.steps, 0);

    let turns = 0;
    const broken: Policy = {
      name: 'broken',
      next: async () => {
        if (++turns === 2) throw new Error('model server went away');
        return { text: '<search_tool>weather forecast</search_tool>', usage: { prompt: 1, completion: 1 } };
      },
    };
    const failed = await runAgent({ server: server.url, agent: 'react', policy: broken, task: TASKS[1]! });
    assert.equal(failed.finish, 'error');
    assert.equal(failed.error, 'model server went away');
    assert.equal(failed.trajectory!.counts.searches, 1);
    assert.ok(failed.surfaced.includes('weather_forecast'));
  },
);

test("a run may take more turns than the server's default step limit: it ends at its own turn cap", async () => {
  const searcher: Policy = {
    name: 'searcher',
    next: async (_messages, context) => ({
      text: `<search_tool>weather forecast ${context.turn}</search_tool>`,
      usage: { prompt: 1, completion: 1 },
    }),
  };
  const result = await runAgent({
    server: server.url,
    agent: 'react',
    policy: searcher,
    task: TASKS[1]!,
    maxTurns: 55,
  });
  assert.equal(result.finish, 'turn_cap', result.error);
  assert.equal(result.turns, 55);
  assert.equal(result.actions, 55);
  assert.equal(result.trajectory!.max_steps, 55);
  assert.equal(result.trajectory!.counts.steps, 55);
});

test("the policy is told the run's seed: the one chosen, else the one the server picked", async () => {
  const seeds: (number | undefined)[] = [];
  const recorder: Policy = {
    name: 'recorder',
    next: async (_messages, context) => {
      seeds.push(context.seed);
      return { text: '<answer>nothing to do</answer>', usage: { prompt: 1, completion: 1 } };
    },
  };
  const chosen = await runAgent({ server: server.url, agent: 'paraact', policy: recorder, task: TASKS[1]!, seed: 42 });
  const picked = await runAgent({ server: server.url, agent: 'paraact', policy: recorder, task: TASKS[1]! });
  assert.deepEqual(seeds, [42, picked.trajectory!.seed]);
  assert.deepEqual([chosen.seed, picked.seed], [42, picked.trajectory!.seed]);
});

test(
  'a trajectory that cannot be fetched leaves the finished ' +
    'run without it, and the episode is deleted all the same',
  async (t) => {
    const proxy = await faultyProxy(
      server.url,
      (method, path) => method === 'GET' && /^\/v1\/episodes\/[^/?]+$/.test(path),
    );
    t.after(() => proxy.close());
    const result = await runAgent({
      server: proxy.url,
      agent: 'paraact',
      policy: heuristic,
      task: TASKS[0]!,
      seed: 1,
      errorRate: 0,
    });
    assert.equal(result.finish, 'answer', result.error);
    assert.equal(result.error, undefined);
    assert.equal(result.trajectory, undefined);
    assert.match(result.trajectory_error!, /^GET \/v1\/episodes\/\S+ answered 500: the proxy failed this request$/);
    assert.match(result.answer!, /Rex/);
    assert.equal(result.calls.length, 3);
    assert.equal(result.seed, 1);
    assert.ok(proxy.seen.includes(`DELETE /v1/episodes/${result.episode_id}`), proxy.seen.join('\n'));
    assert.equal((await fetch(`${server.url}/v1/episodes/${result.episode_id}`)).status, 404);
  },
);

test('bad options and an unreachable server are refused before any episode exists', async () => {
  await assert.rejects(
    runAgent({ server: 'not a url', agent: 'paraact', policy: heuristic, task: TASKS[0]! }),
    /server "not a url" is not a URL/,
  );
  await assert.rejects(
    runAgent({ server: server.url, agent: 'dfs' as AgentName, policy: heuristic, task: TASKS[0]! }),
    /unknown agent "dfs"; one of paraact, react, parallel/,
  );
  await assert.rejects(
    runAgent({ server: server.url, agent: 'react', policy: heuristic, task: TASKS[0]!, maxTurns: 0 }),
    /maxTurns must be a positive integer, got 0/,
  );
  await assert.rejects(
    runAgent({ server: server.url, agent: 'react', policy: heuristic, task: TASKS[0]!, errorRate: 2 }),
    /POST \/v1\/episodes answered 400: .*error_rate/,
  );
  await assert.rejects(
    runAgent({ server: 'http://127.0.0.1:1', agent: 'react', policy: heuristic, task: TASKS[0]! }),
    /POST \/v1\/episodes: cannot reach http:\/\/127\.0\.0\.1:1 \(bad port\)/,
  );
  const closed = await freePort(); // released at once: nothing listens there
  await assert.rejects(
    runAgent({ server: `http://127.0.0.1:${closed}`, agent: 'react', policy: heuristic, task: TASKS[0]! }),
    new RegExp(
      `POST /v1/episodes: cannot reach http://127\\.0\\.0\\.1:${closed} \\(connect ECONNREFUSED ` +
        `127\\.0\\.0\\.1:${closed}\\)`,
    ),
  );
});
