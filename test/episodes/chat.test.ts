import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { expectProblem } from '../server/helpers.js';
import { createEpisode, json, post } from './fixture.js';
import { ADD, GET, TASK, graphServer } from './paraact-text.js';

type Json = Record<string, any>;
const turn = async (url: string, id: string, body: unknown, status = 200): Promise<Json> =>
  json(await post(`${url}/v1/episodes/${id}/turns`, body), status);
const names = (functions: Json[]) => functions.map((f) => f.function.name);
const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
const hermes = (calls: [string, unknown][]) =>
  calls.map(([name, args]) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`).join('\n');

/** The ids of a search's tool message. */
const found = (message: Json): string[] => JSON.parse(message.content).results.map((r: Json) => r.id);

describe('chat episodes (native tool calling)', () => {
  const server = graphServer();
  let url: string;
  before(() => (url = server.url));

  /**
   * The task run as a tool-calling model writes it: two searches in parallel, then addPet natively, then
   * getPetById with the id addPet answered, then the answer. `send` gives a turn as the model wrote it.
   */
  async function runTask(
    send: (id: string, turn: number, calls: [string, unknown][], callIds: string[]) => Promise<Json>,
  ) {
    const episode = await createEpisode(url, { protocol: 'chat', task: TASK, seed: 3, error_rate: 0 });
    const searched = await send(
      episode.id,
      1,
      [
        ['search_tool', { query: 'Add a pet' }],
        ['search_tool', { query: 'Find pet by ID' }],
      ],
      ['s-a', 's-b'],
    );
    assert.equal(searched.messages.length, 2);
    assert.ok(found(searched.messages[0]).includes(ADD), searched.messages[0].content);
    assert.ok(found(searched.messages[1]).includes(GET), searched.messages[1].content);
    assert.ok(
      names(searched.functions).includes(ADD) && names(searched.functions).includes(GET),
      'found tools become native functions',
    );
    const added = await send(episode.id, 2, [[ADD, { name: 'Rex', status: 'available' }]], ['c-add']);
    const body = JSON.parse(added.messages[0].content);
    assert.equal(body.status, 201);
    const read = await send(episode.id, 3, [[GET, { petId: body.body.id }]], ['c-get']);
    assert.match(read.messages[0].content, /"status":200.*"name":"Rex"/);
    const answered = await send(episode.id, 4, [], []);
    return { episode, searched, added, read, answered };
  }

  it(
    'an OpenAI assistant message with parallel tool_calls runs through a chat episode to an answer, ' + 'with rewards',
    async () => {
      const created = await createEpisode(url, { protocol: 'chat', task: TASK });
      assert.equal(created.protocol, 'chat');
      assert.equal(created.tool_parser, 'hermes');
      assert.deepEqual(created.stop, []);
      assert.match(created.messages[0].content, /search_tool/);
      assert.deepEqual(created.messages[1], { role: 'user', content: TASK.query });
      assert.deepEqual(names(created.functions), ['search_tool', 'call_tool']);
      assert.equal(created.functions[0].type, 'function');

      const { episode, searched, answered } = await runTask((id, _n, calls, callIds) =>
        turn(url, id, {
          message:
            calls.length > 0
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: calls.map(([name, args], i) => toolCall(callIds[i]!, name, args)),
                }
              : { role: 'assistant', content: 'Rex was added to the store and read back.' },
        }),
      );
      assert.deepEqual(
        searched.messages.map((m: Json) => [m.role, m.tool_call_id]),
        [
          ['tool', 's-a'],
          ['tool', 's-b'],
        ],
      );
      assert.equal(searched.observation, undefined);
      assert.deepEqual(answered, {
        turn: 4,
        messages: [],
        functions: answered.functions,
        done: true,
        finish: 'answer',
        answer: 'Rex was added to the store and read back.',
      });

      const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
      assert.equal(trajectory.finish, 'answer');
      assert.deepEqual(
        trajectory.turns.map((t: Json) => t.well_formed),
        [true, true, true, true],
      );
      assert.deepEqual(
        trajectory.turns[1].calls.map((c: Json) => [c.id, c.tool, c.ok]),
        [['c-add', ADD, true]],
      );
      assert.deepEqual(
        JSON.parse(trajectory.turns[0].observation).map((m: Json) => m.tool_call_id),
        ['s-a', 's-b'],
      );

      const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
      assert.equal(rewards.r_step, null);
      assert.match(rewards.r_step_note, /not defined for the chat protocol/);
      assert.equal(rewards.answer_source, 'rule');
      assert.equal(rewards.r_ans, 1.5);
      assert.deepEqual(rewards.recall, { search: 1, call: 1 });
      // Each call turn is a phase: addPet alone, then getPetById once addPet had succeeded: both perfect.
      assert.deepEqual(
        rewards.phases.map((p: Json) => [p.turns, p.l1, p.l2, p.l3, p.l4_ratio]),
        [
          [[2], true, true, true, 1],
          [[3], true, true, true, 1],
        ],
      );
      assert.equal(rewards.r_phase, 1);
      assert.equal(rewards.r_traj, 0.1 * 1 + 0.4 * 1 + 1.0 * 1.5, 'Eq. 6 with Table 7’s γ');
    },
  );

  it('the same transcript as Hermes text scores the same, the calls named call_<turn>_<n>', async () => {
    const { episode, searched } = await runTask((id, n, calls) =>
      turn(url, id, {
        text:
          calls.length > 0
            ? `<think>turn ${n}</think>\n${hermes(calls)}`
            : '<think>done</think>\nRex was added to the store and read back.',
      }),
    );
    assert.deepEqual(
      searched.messages.map((m: Json) => m.tool_call_id),
      ['call_1_1', 'call_1_2'],
    );
    const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
    assert.equal(rewards.r_step, null);
    assert.equal(rewards.r_phase, 1);
    assert.equal(rewards.r_ans, 1.5);
    const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
    assert.equal(
      trajectory.answer,
      'Rex was added to the store and read back.',
      'the reasoning is not part of the answer',
    );
  });

  it(
    'calls that G_dep orders, sent together, fail L2 and L3; ' + 'a call through call_tool runs like a native one',
    async () => {
      const episode = await createEpisode(url, { protocol: 'chat', task: TASK, error_rate: 0 });
      await turn(url, episode.id, {
        text: hermes([
          ['search_tool', { query: 'Add a pet' }],
          ['search_tool', { query: 'Find pet by ID' }],
        ]),
      });
      const both = await turn(url, episode.id, {
        text: hermes([
          ['call_tool', { tool: ADD, arguments: { name: 'Rex' } }],
          [GET, { petId: 1 }],
        ]),
      });
      assert.equal(both.messages.length, 2);
      assert.match(both.messages[0].content, new RegExp(`"tool":"${ADD}","status":201`));
      await turn(url, episode.id, { text: 'Done.' });
      const rewards = await json(await fetch(`${url}/v1/episodes/${episode.id}/rewards`));
      assert.equal(rewards.phases.length, 1);
      assert.deepEqual([rewards.phases[0].l1, rewards.phases[0].l2, rewards.phases[0].l3], [true, false, false]);
    },
  );

  it('a message with a call it cannot run runs nothing, and every call of it is answered with why', async () => {
    const episode = await createEpisode(url, { protocol: 'chat', task: TASK, max_turns: 3 });
    const bad = await turn(url, episode.id, {
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          toolCall('a', 'search_tool', { query: 'Add a pet' }),
          toolCall('b', 'weather_now', { city: 'Paris' }),
          { id: 'c', type: 'function', function: { name: 'search_tool', arguments: '{"query": ' } },
        ],
      },
    });
    assert.equal(bad.step, undefined, 'nothing ran');
    assert.deepEqual(
      bad.messages.map((m: Json) => m.tool_call_id),
      ['a', 'b', 'c'],
    );
    assert.match(bad.messages[0].content, /^not run: another call/);
    assert.match(bad.messages[1].content, /no function "weather_now" is offered/);
    assert.match(bad.messages[2].content, /arguments are not JSON/);
    assert.equal(bad.rejected.length, 2);
    const unclosed = await turn(url, episode.id, {
      text: '<tool_call>{"name": "search_tool", "arguments": {"query": "pets"}}',
    });
    assert.deepEqual(unclosed.messages, [
      {
        role: 'user',
        content: 'Your last message was not run: <tool_call> #1 is not closed: end it with </tool_call>.',
      },
    ]);
    const unknownTool = await turn(url, episode.id, {
      text: hermes([['call_tool', { tool: 'no_such_tool', arguments: {} }]]),
    });
    assert.match(unknownTool.messages[0].content, /no tool "no_such_tool" in the library/);
    assert.equal(unknownTool.finish, 'turn_cap');
    const trajectory = await json(await fetch(`${url}/v1/episodes/${episode.id}`));
    assert.deepEqual(
      trajectory.turns.map((t: Json) => t.well_formed),
      [false, false, false],
    );
  });

  it('an episode’s own tools are native functions from the start; calls past max_calls_per_turn wait', async () => {
    const episode = await createEpisode(url, {
      protocol: 'chat',
      tools: [ADD, GET],
      max_calls_per_turn: 1,
      error_rate: 0,
    });
    assert.deepEqual(names(episode.functions), ['search_tool', 'call_tool', ADD, GET]);
    assert.ok(episode.functions[2].function.parameters.properties.name, 'the tool’s own parameters schema');
    const capped = await turn(url, episode.id, {
      text: hermes([
        [ADD, { name: 'Rex' }],
        [ADD, { name: 'Max' }],
      ]),
    });
    assert.match(capped.messages[0].content, /"status":201/);
    assert.match(capped.messages[1].content, /^not run: at most 1 calls per turn/);
    const outside = await turn(url, episode.id, {
      text: hermes([['call_tool', { tool: 'notes_test__listNotes', arguments: {} }]]),
    });
    assert.match(outside.messages[0].content, /is not one of this episode's tools/);
  });

  it('native_tools false: search_tool and call_tool alone, for trainers whose tool list is fixed', async () => {
    const episode = await createEpisode(url, {
      protocol: 'chat',
      native_tools: false,
      tools: [ADD, GET],
      task: TASK,
      error_rate: 0,
    });
    assert.equal(episode.native_tools, false);
    assert.deepEqual(names(episode.functions), ['search_tool', 'call_tool']);
    assert.match(episode.messages[0].content, /call them through call_tool/);
    const searched = await turn(url, episode.id, { text: hermes([['search_tool', { query: 'Add a pet' }]]) });
    assert.deepEqual(names(searched.functions), ['search_tool', 'call_tool']);
    const direct = await turn(url, episode.id, { text: hermes([[ADD, { name: 'Rex' }]]) });
    assert.match(
      direct.messages[0].content,
      /no function .* is offered: call search_tool to find tools, then call them through call_tool/,
    );
    const through = await turn(url, episode.id, {
      text: hermes([['call_tool', { tool: ADD, arguments: { name: 'Rex' } }]]),
    });
    assert.match(through.messages[0].content, /"status":201/);
    const problem = (await expectProblem(await post(`${url}/v1/episodes`, { native_tools: false }), 400)) as Json;
    assert.deepEqual(
      problem.errors.map((e: Json) => e.path),
      ['/native_tools'],
    );
  });

  it('llama3 and mistral tool parsers read their formats', async () => {
    const llama = await createEpisode(url, { protocol: 'chat', tool_parser: 'llama3' });
    const l = await turn(url, llama.id, {
      text:
        '<|python_tag|>{"name": "search_tool", "parameters": {"query": "Add a pet"}}; {"name": "search_tool", ' +
        '"parameters": {"query": "Find pet by ID"}}',
    });
    assert.equal(l.messages.length, 2);
    assert.ok(found(l.messages[0]).includes(ADD));
    const mistral = await createEpisode(url, { protocol: 'chat', tool_parser: 'mistral' });
    const m = await turn(url, mistral.id, {
      text: '[TOOL_CALLS][{"name": "search_tool", "arguments": {"query": "Add a pet"}}]',
    });
    assert.ok(found(m.messages[0]).includes(ADD));
    const v11 = await turn(url, mistral.id, { text: '[TOOL_CALLS]search_tool[ARGS]{"query": "Find pet by ID"}' });
    assert.ok(found(v11.messages[0]).includes(GET));
  });

  it(
    'refuses what does not fit: tool_parser off chat, ' + 'a message to a text episode, a malformed tool call',
    async () => {
      const problem = (await expectProblem(
        await post(`${url}/v1/episodes`, { protocol: 'paraact', tool_parser: 'hermes' }),
        400,
      )) as Json;
      assert.match(JSON.stringify(problem.errors), /applies to protocol \\"chat\\" only/);
      const text = await createEpisode(url, {});
      const refused = (await expectProblem(
        await post(`${url}/v1/episodes/${text.id}/turns`, { message: { role: 'assistant', content: 'hi' } }),
        409,
      )) as Json;
      assert.match(String(refused.detail), /"message" is how a chat episode takes a turn/);
      const chat = await createEpisode(url, { protocol: 'chat' });
      const malformed = (await expectProblem(
        await post(`${url}/v1/episodes/${chat.id}/turns`, {
          message: { role: 'assistant', tool_calls: [{ id: 'x', function: { name: 'search_tool', arguments: 5 } }] },
        }),
        400,
      )) as Json;
      assert.deepEqual(
        malformed.errors.map((e: Json) => e.path),
        ['/message/tool_calls/0/function/arguments'],
      );
    },
  );
});
