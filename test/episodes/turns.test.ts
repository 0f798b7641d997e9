import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { chatRoutes } from '../../src/server/routes/chat.js';
import { startServer } from '../../src/server/serve.js';
import { LlamaEngine } from '../../src/simulator/llama/engine.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { expectProblem } from '../server/helpers.js';
import { TEST_MODEL, tinyModelFile } from '../simulator/llama-fixture.js';
import { createEpisode, json, post, startEpisodeServer, step } from './fixture.js';
import { ADD, ANSWER, EXECUTE, EXPLORE, GET, NEXT, TASK, withGraph } from './paraact-text.js';

type Json = Record<string, any>;
/** A problem+json answer of this status whose detail matches. */
async function refused(response: Response, status: number, detail?: RegExp): Promise<Json> {
  const problem = (await expectProblem(response, status)) as Json;
  if (detail) assert.match(String(problem.detail), detail);
  return problem;
}
const turn = async (url: string, id: string, text: string, status = 200): Promise<Json> =>
  json(await post(`${url}/v1/episodes/${id}/turns`, { text }), status);

describe('text turns', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    await withGraph();
    server = await startEpisodeServer();
    url = server.url;
  });
  after(() => server.close());

  it(
    'a whole ParaAct episode runs on text alone: ' + 'system prompt and task in, observations out, then its rewards',
    async () => {
      const episode = await createEpisode(url, { task: TASK, seed: 3 });
      assert.equal(episode.protocol, 'paraact');
      assert.deepEqual([episode.k, episode.max_calls_per_turn, episode.max_turns], [3, 3, 15]);
      assert.equal(episode.messages.length, 2);
      assert.equal(episode.messages[0].role, 'system');
      assert.match(episode.messages[0].content, /Exploration and Execution/);
      assert.deepEqual(episode.messages[1], { role: 'user', content: TASK.query });

      const first = await turn(url, episode.id, EXPLORE);
      assert.equal(first.turn, 1);
      assert.equal(first.done, false);
      assert.equal(first.step, 1);
      assert.equal(first.observation.role, 'user');
      assert.match(first.observation.content, /^<tools>/);
      assert.ok(
        first.observation.content.includes(ADD) && first.observation.content.includes(GET),
        first.observation.content,
      );

      const second = await turn(url, episode.id, EXECUTE);
      assert.match(
        second.observation.content,
        /<tool_response>\n\{"id":"c1","tool":"petstore_test__addPet","status":201/,
      );
      assert.match(second.observation.content, /Plan: done: c1; to run: c2 \(ready\)\./);
      const third = await turn(url, episode.id, NEXT);
      // The reference was bound server-side: c2 read the pet c1 created, from the episode's world state.
      assert.match(
        third.observation.content,
        /"id":"c2","tool":"petstore_test__getPetById","status":200.*"name":"Rex"/,
      );
      const last = await turn(url, episode.id, ANSWER);
      assert.deepEqual(last, {
        turn: 4,
        observation: { role: 'user', content: '' },
        done: true,
        finish: 'answer',
        answer: 'Rex was added to the store and read back.',
      });
      await refused(await post(`${url}/v1/episodes/${episode.id}/turns`, { text: ANSWER }), 409, /answered on turn 4/);

      const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
      assert.equal(trajectory.counts.turns, 4);
      assert.equal(trajectory.finish, 'answer');
      assert.equal(trajectory.turns[1].text, EXECUTE);
      assert.deepEqual(
        trajectory.turns.map((t: Json) => t.controller),
        ['need', 'need', 'may', 'answer'],
      );
      assert.deepEqual(trajectory.turns[1].plan.calls, [
        { id: 'c1', tool: ADD, depends_on: [] },
        { id: 'c2', tool: GET, depends_on: ['c1'] },
      ]);

      const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
      assert.equal(rewards.r_step, 7 / 8, 'every turn well formed; r_plan 1, 1, 1, 0');
      assert.equal(rewards.answer_source, 'rule');
      assert.equal(rewards.pattern, '111');
      assert.equal(rewards.r_ans, 1.5);
      assert.equal(rewards.gate, 1);
      assert.equal(rewards.graph, true);
      assert.equal(rewards.phases.length, 1);
      assert.deepEqual(rewards.phases[0].turns, [2, 3]);
      assert.deepEqual(
        [rewards.phases[0].l1, rewards.phases[0].l2, rewards.phases[0].l3, rewards.phases[0].l4_ratio],
        [true, true, true, 1],
      );
      assert.equal(rewards.r_phase, 1);
      assert.deepEqual(rewards.recall, { search: 1, call: 1 });
      assert.equal(rewards.r_traj, 0.1 + 0.4 + 1.5);
      // The same episode always scores the same; given verdicts score as given.
      assert.deepEqual(await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`)), rewards);
      const given = await json(
        await post(`${url}/v1/episodes/${episode.id}/rewards`, {
          verdicts: { quality: 'yes', faithfulness: 'YES', utility: 'PARTIAL' },
        }),
      );
      assert.equal(given.answer_source, 'verdicts');
      assert.equal(given.r_ans, 0.5);
      assert.equal(given.r_phase, 0.5);
    },
  );

  it('max_observation_chars bounds every observation: tool ids kept whole, the cut said in the text', async () => {
    const whole = await createEpisode(url, { task: TASK, seed: 3 });
    const full = (await turn(url, whole.id, EXPLORE)).observation.content as string;
    const budget = Math.max(256, Math.floor(full.length / 2));
    const episode = await createEpisode(url, { task: TASK, seed: 3, max_observation_chars: budget });
    assert.equal(episode.max_observation_chars, budget);
    const first = (await turn(url, episode.id, EXPLORE)).observation.content as string;
    assert.ok(full.length > budget, `the fixture's search observation (${full.length} chars) must exceed the budget`);
    assert.ok(first.length <= budget, `${first.length} > ${budget}`);
    assert.match(
      first,
      new RegExp(
        `\\(Cut to the ${budget}-character observation budget: \\d+ of ${full.length} characters left out\\.\\)$`,
      ),
    );
    // Ids are what the next turn calls tools by: they are never shortened, whatever else is.
    const ids = [...first.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]);
    assert.ok(ids.length > 0 && ids.every((id) => full.includes(`"id":"${id}"`)), first);
    const second = (await turn(url, episode.id, EXECUTE)).observation.content as string;
    assert.ok(second.length <= budget);
    await refused(
      await post(`${url}/v1/episodes`, { task: TASK, max_observation_chars: 10 }),
      400,
      /max_observation_chars/,
    );
  });

  it(
    'system_prompt brief sends the short grammar, ' + 'said in the summary; the turns it teaches run the same',
    async () => {
      const full = await createEpisode(url, { task: TASK, seed: 3 });
      const brief = await createEpisode(url, { task: TASK, seed: 3, system_prompt: 'brief' });
      assert.equal(full.system_prompt, undefined);
      assert.equal(brief.system_prompt, 'brief');
      const [fullSystem, briefSystem] = [full.messages[0].content as string, brief.messages[0].content as string];
      assert.ok(briefSystem.length * 2 < fullSystem.length, `${briefSystem.length} vs ${fullSystem.length} characters`);
      for (const tag of [
        '<think>',
        '<plan>',
        '<search_tool>',
        '<tool_call>',
        '<answer>',
        '<tools>',
        '<tool_response>',
        '<error>',
      ])
        assert.ok(briefSystem.includes(tag), tag);
      assert.deepEqual(brief.messages.slice(1), full.messages.slice(1));
      const [a, b] = [await turn(url, full.id, EXPLORE), await turn(url, brief.id, EXPLORE)];
      assert.equal(b.observation.content, a.observation.content);
      await refused(
        await post(`${url}/v1/episodes`, { task: TASK, system_prompt: 'short' }),
        400,
        /system_prompt.*full, brief/,
      );
    },
  );

  it(
    'a rejected message runs nothing, says why, ' +
      'counts as a turn and scores r_base 0; the turn cap ends the episode',
    async () => {
      const episode = await createEpisode(url, { task: TASK, max_turns: 2 });
      const rejected = await turn(
        url,
        episode.id,
        '<think>x</think><tool_call>{"tool": "nope__tool", "arguments": {}}</tool_call><search_tool>pets</search_tool>',
      );
      assert.equal(rejected.step, undefined);
      assert.equal(rejected.done, false);
      assert.ok(
        rejected.rejected.some((p: string) => /explores .* or executes .*, not both/.test(p)),
        rejected.rejected.join('\n'),
      );
      assert.match(rejected.observation.content, /^<error>\nYour last message was not run:/);
      const capped = await turn(url, episode.id, EXPLORE);
      assert.equal(capped.done, true);
      assert.equal(capped.finish, 'turn_cap');
      assert.match(capped.observation.content, /<tools>/);
      const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
      assert.deepEqual(
        rewards.steps.map((s: Json) => [s.state, s.r_base, s.r_plan]),
        [
          ['need', 0, 0],
          ['need', 1, 1],
        ],
      );
      assert.equal(rewards.answer_source, 'missing');
      assert.equal(rewards.r_ans, -0.5);
      assert.equal(rewards.r_phase, 0);
      assert.equal(rewards.r_traj, 0.1 * 1 + 0 - 0.5);
    },
  );

  it(
    'an episode speaks text turns or JSON steps, not both; ' + 'a malformed turn body is a 400 naming the member',
    async () => {
      const texty = await createEpisode(url, { task: TASK });
      await turn(url, texty.id, EXPLORE);
      await refused(
        await post(`${url}/v1/episodes/${texty.id}/step`, { actions: [{ type: 'search_tool', query: 'pets' }] }),
        409,
        /speaks text turns/,
      );
      await refused(
        await post(`${url}/v1/tools/${ADD}/call`, { arguments: { name: 'x' } }, { 'x-toolenv-episode': texty.id }),
        409,
        /speaks text turns/,
      );
      const stepped = await createEpisode(url);
      await step(url, stepped.id, [{ type: 'search_tool', query: 'pets' }]);
      await refused(await post(`${url}/v1/episodes/${stepped.id}/turns`, { text: EXPLORE }), 409, /took JSON steps/);
      const problem = await refused(
        await post(`${url}/v1/episodes/${texty.id}/turns`, { text: 3, extra: true }),
        400,
        /text/,
      );
      assert.deepEqual(problem.errors.map((e: Json) => e.path).sort(), ['/extra', '/text']);
      await refused(
        await post(`${url}/v1/episodes`, { protocol: 'dfs', max_turns: 0, reward: { w9: 1 } }),
        400,
        /protocol/,
      );
    },
  );

  it('the baselines speak their own protocols: ReAct takes one action per turn', async () => {
    const episode = await createEpisode(url, { task: TASK, protocol: 'react' });
    assert.match(episode.messages[0].content, /exactly ONE action/);
    const two = await turn(
      url,
      episode.id,
      '<think>t</think><search_tool>Add a pet</search_tool><search_tool>Find pet by ID</search_tool>',
    );
    assert.match(two.rejected.join(' '), /ReAct takes one action per turn/);
    const one = await turn(url, episode.id, '<think>t</think><search_tool>Add a pet</search_tool>');
    assert.equal(one.rejected, undefined);
  });

  it('"state": true answers the run state as data', async () => {
    const episode = await createEpisode(url, { task: TASK });
    const result = await json(await post(`${url}/v1/episodes/${episode.id}/turns`, { text: EXPLORE, state: true }));
    assert.ok(result.state.surfaced.includes(ADD));
    assert.equal(result.state.searches.length, 2);
    assert.deepEqual(result.state.calls, []);
  });

  it(
    'a group is n episodes of one task under one seed: ' +
      'the same turns meet the same injected errors; advantages per group',
    async () => {
      // Half the calls fail by injection: the members must still see the very same failures.
      const noisy = await json(await post(`${url}/v1/groups`, { task: TASK, n: 2, error_rate: 0.5, seed: 11 }), 201);
      const seen = await Promise.all(
        noisy.episodes.map(async (e: Json) =>
          [await turn(url, e.id, EXPLORE), await turn(url, e.id, EXECUTE), await turn(url, e.id, NEXT)].map(
            (r) => r.observation.content,
          ),
        ),
      );
      assert.deepEqual(seen[1], seen[0]);
      assert.ok(
        seen[0]!.join('').includes('(injected)') || seen[0]!.join('').includes('"status":201'),
        seen[0]!.join('\n'),
      );

      const group = await json(await post(`${url}/v1/groups`, { task: TASK, n: 3, error_rate: 0 }), 201);
      assert.equal(group.n, 3);
      assert.equal(group.episodes.length, 3);
      assert.ok(
        group.episodes.every((e: Json) => e.seed === group.seed && e.group === group.id && e.messages.length === 2),
      );
      const ids = group.episodes.map((e: Json) => e.id);
      const observations: string[][] = [[], [], []];
      for (const text of [EXPLORE, EXECUTE, NEXT]) {
        const results = await Promise.all(ids.map((id: string) => turn(url, id, text)));
        results.forEach((r, i) => observations[i]!.push(r.observation.content));
      }
      assert.deepEqual(observations[1], observations[0]);
      assert.deepEqual(observations[2], observations[0]);
      // Two answer alike, one gives up: only R_traj and R_phase can tell them apart.
      await turn(url, ids[0], ANSWER);
      await turn(url, ids[1], ANSWER);
      await turn(url, ids[2], '<think>stop</think><answer>I could not do it.</answer>');
      const advantages = await json(await fetch(`${url}/v1/groups/${group.id}/advantages`));
      assert.equal(advantages.mode, 'decoupled');
      const [a, b, c] = advantages.episodes as Json[];
      assert.deepEqual([a!.id, b!.id, c!.id], ids);
      assert.equal(a!.a_step, 0, 'every rollout has the same R_step');
      assert.equal(a!.advantage, b!.advantage);
      assert.ok(a!.advantage > 0 && c!.advantage < 0, JSON.stringify(advantages));
      const sum = advantages.episodes.reduce((s: number, e: Json) => s + e.advantage, 0);
      assert.ok(Math.abs(sum) < 1e-9, 'standardized components sum to zero in the group');
      const aggregated = await json(await fetch(`${url}/v1/groups/${group.id}/advantages?mode=aggregated`));
      assert.equal(aggregated.episodes[0].a_traj, null);
      assert.ok(aggregated.episodes[0].advantage > 0);
      await refused(
        await fetch(`${url}/v1/groups/${group.id}/advantages?mode=sum`),
        400,
        /mode must be one of decoupled, aggregated/,
      );

      // The same math for groups a trainer keeps itself.
      const mine = await json(
        await post(`${url}/v1/advantages`, {
          groups: [advantages.episodes.map(({ r_step, r_phase, r_traj }: Json) => ({ r_step, r_phase, r_traj }))],
        }),
      );
      assert.deepEqual(
        mine.groups[0].map((x: Json) => x.advantage),
        advantages.episodes.map((e: Json) => e.advantage),
      );
      await refused(
        await post(`${url}/v1/advantages`, { groups: [[{ r_step: 'x', r_phase: 0, r_traj: 0 }]] }),
        400,
        /r_step/,
      );

      assert.equal((await json(await fetch(`${url}/v1/groups/${group.id}`))).episodes.length, 3);
      await json(await fetch(`${url}/v1/episodes/${ids[2]}`, { method: 'DELETE' }));
      await refused(await fetch(`${url}/v1/groups/${group.id}/advantages`), 409, /1 of its 3 episodes are gone/);
      await json(await fetch(`${url}/v1/groups/${group.id}`, { method: 'DELETE' }));
      await refused(await fetch(`${url}/v1/episodes/${ids[0]}`), 404);
      await refused(await fetch(`${url}/v1/groups/${group.id}`), 404);
      await refused(await post(`${url}/v1/groups`, { n: 2 }), 400, /task/);
    },
  );

  it(
    'restating the plan in force does not run its finished calls again: ' + 'the next layer reads their results',
    async () => {
      const episode = await createEpisode(url, { task: TASK });
      await turn(url, episode.id, EXPLORE);
      await turn(url, episode.id, EXECUTE);
      const again = await turn(
        url,
        episode.id,
        EXECUTE.replace('<tool_call>{"id": "c1"}</tool_call>', '<tool_call>{"id": "c2"}</tool_call>'),
      );
      assert.match(again.observation.content, /"id":"c2","tool":"petstore_test__getPetById","status":200/);
      assert.doesNotMatch(again.observation.content, /Not run/);
      // A restated plan with no <tool_call> runs its first layer that still has calls to run: none here.
      const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
      assert.equal(trajectory.counts.calls, 2, 'c1 ran once');
      const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
      assert.deepEqual(
        rewards.steps.map((s: Json) => s.r_plan),
        [1, 1, 0],
        'the repeated plan scores 0',
      );
      assert.equal(rewards.phases[0].windows[1].scheduled, 1, 'the second window schedules only c2');
    },
  );

  it('JSON nested past 64 levels rejects the message (no 500, the plan in force unchanged)', async () => {
    const episode = await createEpisode(url, { task: TASK });
    await turn(url, episode.id, EXPLORE);
    const deep = `${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}`;
    const result = await turn(
      url,
      episode.id,
      `<think>x</think><tool_call>{"id": "c9", "tool": "${ADD}", "arguments": ${deep}}</tool_call>`,
    );
    assert.match(result.rejected.join(' '), /nests deeper than 64 levels/);
    await turn(url, episode.id, EXECUTE);
  });

  it('a plan under a baseline protocol is no valid plan: r_plan 0', async () => {
    const episode = await createEpisode(url, { task: TASK, protocol: 'react' });
    await turn(
      url,
      episode.id,
      '<think>a</think><plan>{"phase": "exploration", "slots": ["x"]}</plan><search_tool>x</search_tool>',
    );
    const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
    assert.deepEqual(rewards.steps[0], { turn: 1, state: 'need', r_base: 0, r_plan: 0 });
  });

  it(
    'turn texts past the episode budget are kept as previews with their sizes; ' + 'the turn itself answers whole',
    async () => {
      const episode = await createEpisode(url, { task: TASK, max_turns: 30 });
      const long = `<think>${'x'.repeat(190_000)}</think><answer`;
      let last: Json = {};
      for (let i = 0; i < 23; i++) last = await turn(url, episode.id, long);
      assert.equal(last.rejected.length > 0, true);
      const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
      const kept = trajectory.turns.filter((t: Json) => t.text_truncated === undefined);
      const cut = trajectory.turns.filter((t: Json) => t.text_truncated !== undefined);
      assert.ok(kept.length >= 20 && cut.length >= 1, `${kept.length} kept, ${cut.length} cut`);
      assert.equal(cut.at(-1).text_truncated, long.length);
      assert.ok(cut.at(-1).text.length <= 512);
    },
  );

  it(
    'reward coefficients and advantage inputs are bounded, ' + 'so no reward overflows to a null that looks flagged',
    async () => {
      await refused(await post(`${url}/v1/episodes`, { reward: { gamma_ans: 1e308 } }), 400, /from 0 to 1000/);
      await refused(
        await post(`${url}/v1/advantages`, { groups: [[{ r_step: 1.7e308, r_phase: 0, r_traj: 0 }]] }),
        400,
        /must be a number from -1000000 to 1000000, or null/,
      );
      await refused(
        await post(`${url}/v1/advantages`, { groups: [[{ r_step: 0, r_phase: 0, r_traj: 0 }]], mode: null }),
        400,
        /mode/,
      );
    },
  );

  it('making groups does not keep idle members of older groups alive', async (t) => {
    // Groups made more often than the TTL: each create looks over the older groups, and must not refresh them.
    const small = await startEpisodeServer({ episodeTtlMs: 500, maxEpisodes: 3 });
    t.after(() => small.close());
    for (let i = 0; i < 8; i++) {
      await json(await post(`${small.url}/v1/groups`, { n: 1, task: { id: 't', query: 'q' } }), 201);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
});

describe('the answer judge through a real OpenAI-compatible server', () => {
  it(
    'the tiny GGUF behind the project’s own chat route judges an answer; ' +
      'a judge that fails is flagged, not scored',
    async () => {
      const engine = new LlamaEngine({ ...TEST_MODEL, model: tinyModelFile(), contextSize: 4096, parallel: 1 });
      const judgeServer = await startServer({
        library: writeFixtureLibrary(),
        cacheMode: 'off',
        responders: [synthResponder],
        port: 0,
        routes: [chatRoutes(engine)],
        log: () => {},
      });
      const server = await startEpisodeServer({ judge: `openai:@${judgeServer.url}` });
      try {
        const open = { id: 'open', query: 'Add a pet named Rex.' };
        const episode = await createEpisode(server.url, { task: open });
        for (const text of [EXPLORE, EXECUTE, ANSWER]) await turn(server.url, episode.id, text);
        const rewards = await json(await fetch(`${server.url}/v1/episodes/${episode.id}/rewards`));
        assert.equal(rewards.answer_source, 'judge');
        assert.match(rewards.pattern, /^[01]{3}$/);
        assert.equal(rewards.judge.model, 'tiny.gguf');
        assert.ok([-0.5, 0, 0.5, 1.5].includes(rewards.r_ans));
        assert.deepEqual(
          await json(await fetch(`${server.url}/v1/episodes/${episode.id}/rewards`)),
          rewards,
          'judged once',
        );
        // A judge on a closed port, named by the request: flagged, with the step reward still scored.
        const flagged = await json(
          await post(`${server.url}/v1/episodes/${episode.id}/rewards`, { judge: 'openai:m@http://127.0.0.1:9' }),
        );
        assert.match(flagged.flagged, /the judge failed: .*3 attempts failed/);
        assert.equal(flagged.r_ans, null);
        assert.equal(flagged.r_traj, null);
        assert.ok(flagged.r_step > 0);
        const none = await json(await post(`${server.url}/v1/episodes/${episode.id}/rewards`, { judge: false }));
        assert.equal(none.answer_source, 'unscored');
        await refused(
          await post(`${server.url}/v1/episodes/${episode.id}/rewards`, { judge: 'gpt-4' }),
          400,
          /\/judge must match .*, like "openai:qwen3-8b@http:\/\/localhost:8000\/v1", got "gpt-4"/,
        );
      } finally {
        await server.close();
        await judgeServer.close();
        await engine.close();
      }
    },
  );

  it('concurrent reward requests share one judgement', async () => {
    let asked = 0;
    const judge = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const verdict = ++asked % 2 === 1 ? 'YES' : 'NO';
        setTimeout(() => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              choices: [
                {
                  message: {
                    content: JSON.stringify({ quality: verdict, faithfulness: verdict, utility: verdict, reason: 'r' }),
                  },
                },
              ],
            }),
          );
        }, 100);
      });
    });
    await new Promise<void>((resolve) => judge.listen(0, '127.0.0.1', resolve));
    const server = await startEpisodeServer({
      judge: `openai:m@http://127.0.0.1:${(judge.address() as AddressInfo).port}`,
    });
    try {
      const episode = await createEpisode(server.url, { task: { id: 'open', query: 'Add a pet named Rex.' } });
      for (const text of [EXPLORE, EXECUTE, ANSWER]) await turn(server.url, episode.id, text);
      const all = await Promise.all(
        [1, 2, 3].map(() => fetch(`${server.url}/v1/episodes/${episode.id}/rewards`).then((r) => json(r))),
      );
      assert.equal(asked, 1);
      assert.deepEqual(
        all.map((r) => r.r_ans),
        [1.5, 1.5, 1.5],
      );
    } finally {
      await server.close();
      judge.close();
    }
  });
});
