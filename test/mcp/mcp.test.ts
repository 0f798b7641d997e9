import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SearchObservation, ToolCallObservation } from '../../src/wire/episodes.js';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreApi, petstoreTools } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { expectProblem, postJson, startTestServer } from '../server/helpers.js';
import { callTool, connect, initializeRequest, textJson, trajectory } from './helpers.js';

describe('MCP at /mcp, through the SDK client', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ library: writeRetrievalLibrary() });
  });
  after(() => server.close());

  it('initializes, lists search_tool and call_tool, and names the episode', async () => {
    const { client, transport, episode } = await connect(server.url);
    try {
      assert.deepEqual(client.getServerVersion()?.name, 'toolenv');
      assert.match(client.getInstructions() ?? '', new RegExp(`episode ${episode}: GET /v1/episodes/${episode}`));
      const { tools, nextCursor } = await client.listTools();
      assert.equal(nextCursor, undefined);
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['search_tool', 'call_tool'],
      );
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
      }
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it(
    'search_tool answers the search observation; ' + 'call_tool the call observation, failures as tool errors',
    async () => {
      const { client, transport, episode } = await connect(server.url);
      try {
        await client.listTools();
        const search = await callTool(client, 'search_tool', { query: 'find a pet by its id', k: 2 });
        assert.equal(search.isError, undefined);
        const found = search.structuredContent as unknown as SearchObservation;
        assert.equal(found.results.length, 2);
        assert.equal(found.results[0]!.id, 'petstore_test__getPetById');
        assert.equal(found.results[0]!.description, 'Find pet by ID');
        assert.deepEqual(textJson(search).results, found.results);
        assert.deepEqual(search._meta, { 'toolenv/episode': episode, 'toolenv/step': 1 });

        const ok = await callTool(client, 'call_tool', {
          tool: 'weather_forecast',
          arguments: { city: 'Oslo', days: 3 },
        });
        assert.equal(ok.isError, undefined);
        const observation = ok.structuredContent as unknown as ToolCallObservation;
        assert.equal(observation.status, 200);
        assert.equal(observation.source, 'synth');
        assert.deepEqual(observation.body, { tool: 'weather_forecast', args: { city: 'Oslo', days: 3 } });
        assert.deepEqual(textJson(ok), observation.body);

        const invalid = await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { days: 99 } });
        assert.equal(invalid.isError, true);
        const problem = textJson(invalid);
        assert.equal(problem.status, 400);
        assert.equal((invalid.structuredContent as { status: number }).status, 400);
        assert.ok(
          problem.errors.some((e: { path: string }) => e.path === '/days'),
          JSON.stringify(problem.errors),
        );

        const unknown = await callTool(client, 'call_tool', { tool: 'no_such_tool', arguments: {} });
        assert.equal(unknown.isError, true);
        assert.equal(textJson(unknown).status, 404);
        assert.equal((unknown.structuredContent as { source: string }).source, 'rule');

        const { status, body } = await trajectory(server.url, episode);
        assert.equal(status, 200);
        assert.equal(body.steps.length, 4);
        assert.deepEqual(
          body.steps.map((step) => step.actions[0]!.type),
          ['search_tool', 'tool_call', 'tool_call', 'tool_call'],
        );
        assert.deepEqual(body.steps[1]!.observations[0], observation);
        assert.ok(body.working_set.includes('petstore_test__getPetById'));
        assert.equal(body.counts.failed_calls, 2);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    },
  );

  it('bad meta-tool input and unknown tool names are tool errors, recorded nowhere', async () => {
    const { client, transport, episode } = await connect(server.url);
    try {
      const noQuery = await callTool(client, 'search_tool', { k: 2 });
      assert.equal(noQuery.isError, true);
      assert.match(textJson(noQuery).detail, /"query" must be a non-empty string/);
      const extra = await callTool(client, 'call_tool', { tool: 'weather_forecast', args: {} });
      assert.equal(textJson(extra).status, 400);
      assert.match(textJson(extra).detail, /unknown argument "args"/);
      const notListed = await callTool(client, 'weather_forecast', { city: 'Oslo' });
      assert.equal(notListed.isError, true);
      assert.equal(textJson(notListed).status, 404);
      assert.equal((await trajectory(server.url, episode)).body.steps.length, 0);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it("the episode's world state answers through MCP, and the client's output-schema check accepts it", async (t) => {
    // A create that names its own id (the real petstore's addPet takes a whole Pet), so the read can find it.
    const addPet = petstoreTools.find((tool) => tool.id === 'petstore_test__addPet')!;
    const withId = {
      ...addPet,
      parameters: { ...addPet.parameters, properties: { id: { type: 'integer' }, ...addPet.parameters.properties } },
      bindings: { id: { in: 'body' as const, name: 'id' }, ...addPet.bindings },
    };
    const petstore = await startTestServer({
      tools: petstoreTools.map((tool) => (tool.id === addPet.id ? withId : tool)),
      apis: [petstoreApi],
    });
    t.after(() => petstore.close());
    const { client, transport } = await connect(petstore.url);
    try {
      // Listing makes the client compile the output schemas it then checks every structured result against.
      await client.listTools();
      const created = await callTool(client, 'call_tool', {
        tool: 'petstore_test__addPet',
        arguments: { id: 42, name: 'Rex' },
      });
      assert.equal((created.structuredContent as unknown as ToolCallObservation).state, 'created');
      const read = await callTool(client, 'call_tool', { tool: 'petstore_test__getPetById', arguments: { petId: 42 } });
      const observation = read.structuredContent as unknown as ToolCallObservation;
      assert.deepEqual([observation.status, observation.source, observation.state], [200, 'state', 'read']);
      assert.equal(textJson(read).name, 'Rex');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('two sessions record into two episodes, each holding only its own calls', async () => {
    const a = await connect(server.url);
    const b = await connect(server.url);
    try {
      assert.notEqual(a.episode, b.episode);
      assert.notEqual(a.transport.sessionId, b.transport.sessionId);
      await Promise.all([
        callTool(a.client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } }),
        callTool(b.client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Lima' } }),
        callTool(b.client, 'search_tool', { query: 'convert money between currencies' }),
      ]);
      const ta = (await trajectory(server.url, a.episode)).body;
      const tb = (await trajectory(server.url, b.episode)).body;
      assert.deepEqual(
        ta.steps.map((s) => s.actions[0]),
        [{ type: 'tool_call', tool: 'weather_forecast', arguments: { city: 'Oslo' } }],
      );
      // b's two calls ran concurrently, so either may be step 1.
      const bActions = tb.steps.map((s) => s.actions[0]!);
      assert.equal(bActions.length, 2);
      assert.ok(bActions.some((action) => action.type === 'tool_call' && action.arguments.city === 'Lima'));
      assert.ok(bActions.some((action) => action.type === 'search_tool'));
      assert.deepEqual(ta.working_set, []);
      assert.ok(tb.working_set.includes('convert_currency'));
    } finally {
      for (const { client, transport } of [a, b]) {
        await transport.terminateSession();
        await client.close();
      }
    }
  });

  it('closing the session ends its episode; the session is gone afterwards', async () => {
    const { client, transport, episode } = await connect(server.url);
    await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
    assert.equal((await trajectory(server.url, episode)).status, 200);
    const id = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    assert.equal((await trajectory(server.url, episode)).status, 404);
    const again = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.match(String((await expectProblem(again, 404)).detail), /closed or expired/);
  });

  it('takes seed, error_rate and max_steps for the episode it opens', async () => {
    const { client, transport, episode } = await connect(server.url, { query: '?seed=7&error_rate=0&max_steps=2' });
    try {
      const summary = (await trajectory(server.url, episode)).body;
      assert.equal(summary.seed, 7);
      assert.equal(summary.error_rate, 0);
      assert.equal(summary.max_steps, 2);
      await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
      await callTool(client, 'search_tool', { query: 'weather' });
      const late = await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
      assert.equal(late.isError, true);
      assert.equal(textJson(late).status, 409);
      assert.deepEqual(late._meta, { 'toolenv/episode': episode });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('attaches to an existing episode with ?episode=, which outlives the session', async () => {
    const created = (await (await postJson(`${server.url}/v1/episodes`, { seed: 3 })).json()) as { id: string };
    const { client, transport, episode } = await connect(server.url, { query: `?episode=${created.id}` });
    assert.equal(episode, created.id);
    await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
    await transport.terminateSession();
    await client.close();
    const kept = await trajectory(server.url, created.id);
    assert.equal(kept.status, 200);
    assert.equal(kept.body.steps.length, 1);
    await fetch(`${server.url}/v1/episodes/${created.id}`, { method: 'DELETE' });
  });
});

describe('MCP listing modes: library tools as native MCP tools', () => {
  const bulk = Array.from({ length: 230 }, (_, i) => ({
    id: `bulk_tool_${String(i).padStart(3, '0')}`,
    name: `bulk tool ${i}`,
    description: `Bulk tool number ${i}.`,
    category: 'bulk',
    parameters: { type: 'object' as const, properties: { n: { type: 'integer' } }, required: ['n'] },
    examples: [],
    origin: { format: 'openai' as const, name: `bulk_${i}` },
  }));
  let server: RunningServer;
  before(async () => {
    const { retrievalTools } = await import('../retrieval/fixture.js');
    const { petstoreApi } = await import('../fixtures/tools.js');
    const annotated = {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      place: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    };
    const loose = {
      ...bulk[0]!,
      id: 'loose_tool',
      category: 'loose',
      parameters: { type: 'object' as const, properties: { anything: true, nothing: false, ...annotated } },
    };
    server = await startTestServer({ tools: [...retrievalTools, ...bulk, loose], apis: [petstoreApi] });
  });
  after(() => server.close());

  it('?tools= lists exactly those tools with their parameter schemas, and calls them directly', async () => {
    const { client, transport, episode } = await connect(server.url, {
      query: '?tools=weather_forecast,petstore_test__deletePet',
    });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['weather_forecast', 'petstore_test__deletePet'],
      );
      const weather = tools[0]!;
      assert.equal(weather.description, 'Get the weather forecast for a city for the next days.');
      assert.deepEqual(weather.inputSchema, {
        type: 'object',
        required: ['city'],
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 14 } },
      });
      assert.equal(tools[1]!.annotations?.destructiveHint, true);

      const result = await callTool(client, 'weather_forecast', { city: 'Oslo' });
      assert.equal(result.isError, undefined);
      assert.deepEqual(textJson(result), { tool: 'weather_forecast', args: { city: 'Oslo' } });
      const invalid = await callTool(client, 'weather_forecast', {});
      assert.equal(invalid.isError, true);
      assert.equal(textJson(invalid).status, 400);
      const other = await callTool(client, 'sendEmail', { to: 'a@b.c' });
      assert.equal(other.isError, true);
      assert.equal(textJson(other).status, 404);

      const steps = (await trajectory(server.url, episode)).body.steps;
      assert.deepEqual(
        steps.map((s) => s.actions[0]),
        [
          { type: 'tool_call', tool: 'weather_forecast', arguments: { city: 'Oslo' } },
          { type: 'tool_call', tool: 'weather_forecast', arguments: {} },
        ],
      );
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it(
    'lists boolean property schemas in the object form the SDK client accepts, ' + 'without x-mcp-header annotations',
    async () => {
      const { client, transport } = await connect(server.url, { query: '?tools=loose_tool' });
      try {
        const { tools } = await client.listTools();
        const properties = {
          anything: {},
          nothing: { not: {} },
          region: { type: 'string' },
          place: { type: 'object', properties: { zone: { type: 'string' } } },
        };
        assert.deepEqual(tools[0]!.inputSchema, { type: 'object', properties });
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    },
  );

  it('?category= lists the category a page at a time, following the SDK cursor', async () => {
    const { client, transport } = await connect(server.url, { query: '?category=bulk' });
    try {
      const names: string[] = [];
      const pages: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        pages.push(page.tools.length);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      assert.deepEqual(pages, [100, 100, 30]);
      assert.deepEqual(
        names,
        bulk.map((t) => t.id),
      );
      const result = await callTool(client, 'bulk_tool_229', { n: 1 });
      assert.deepEqual(textJson(result), { tool: 'bulk_tool_229', args: { n: 1 } });
      assert.equal((await callTool(client, 'weather_forecast', { city: 'Oslo' })).isError, true);
      await assert.rejects(client.listTools({ cursor: 'bogus' }), /cursor "bogus"/);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('?working_set lists search_tool, then every tool search has surfaced, announcing each change', async () => {
    const { client, transport, episode } = await connect(server.url, { query: '?working_set' });
    try {
      let changes = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++;
      });
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['search_tool'],
      );
      const search = await callTool(client, 'search_tool', { query: 'weather forecast for a city', k: 1 });
      assert.equal((search.structuredContent as unknown as SearchObservation).results[0]!.id, 'weather_forecast');
      assert.equal(changes, 1);
      await callTool(client, 'search_tool', { query: 'weather forecast for a city', k: 1 });
      assert.equal(changes, 1);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['search_tool', 'weather_forecast'],
      );
      const call = await callTool(client, 'weather_forecast', { city: 'Oslo' });
      assert.deepEqual(textJson(call), { tool: 'weather_forecast', args: { city: 'Oslo' } });
      assert.equal((await callTool(client, 'call_tool', { tool: 'weather_forecast' })).isError, true);
      assert.equal((await trajectory(server.url, episode)).body.steps.length, 3);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('rejects bad session parameters with 400 problems naming them', async () => {
    const detail = async (query: string, status = 400) =>
      String((await expectProblem(await initializeRequest(`${server.url}/mcp${query}`), status)).detail);
    assert.match(await detail('?colour=red'), /unknown query parameter "colour"/);
    assert.match(await detail('?tools=weather_forecast,nope'), /"nope"/);
    assert.match(await detail('?category=nope'), /no tools in category "nope".*bulk/);
    assert.match(await detail('?category=bulk&working_set'), /at most one of/);
    assert.match(await detail('?seed=abc'), /seed must be a number/);
    assert.match(await detail('?episode=ep_missing&seed=1'), /new episode/);
    assert.match(await detail('?episode=ep_missing', 404), /no episode "ep_missing"/);
    assert.equal((await expectProblem(await initializeRequest(`${server.url}/mcp?max_steps=-1`), 400)).status, 400);
  });
});

describe('MCP transport edges', () => {
  it('needs the API key when the server has one', async (t) => {
    const server = await startTestServer({ apiKey: 'sekret' });
    t.after(() => server.close());
    await assert.rejects(connect(server.url), /401|API key/);
    const { client, transport, episode } = await connect(server.url, { headers: { authorization: 'Bearer sekret' } });
    const result = await callTool(client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
    assert.equal(result.isError, undefined);
    assert.equal((await trajectory(server.url, episode, { authorization: 'Bearer sekret' })).body.steps.length, 1);
    await transport.terminateSession();
    await client.close();
  });

  it('answers requests outside a session with problems, and GET with 405', async (t) => {
    const server = await startTestServer();
    t.after(() => server.close());
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    assert.match(
      String((await expectProblem(await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), 400)).detail),
      /must be an initialize request/,
    );
    await expectProblem(await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'nope' }), 404);
    await expectProblem(
      await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      400,
    );
    await expectProblem(await fetch(`${server.url}/mcp`, { method: 'DELETE' }), 400);
    const get = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    await expectProblem(get, 405);
    assert.match(get.headers.get('allow') ?? '', /POST/);
  });

  it('speaks plain JSON to a raw client: initialize names the session and the episode, DELETE ends both', async (t) => {
    const server = await startTestServer();
    t.after(() => server.close());
    const init = await initializeRequest(`${server.url}/mcp?seed=5`);
    assert.equal(init.status, 200);
    assert.equal(init.headers.get('content-type'), 'application/json');
    const body = (await init.json()) as { result: { serverInfo: { name: string }; capabilities: { tools?: unknown } } };
    assert.equal(body.result.serverInfo.name, 'toolenv');
    assert.ok(body.result.capabilities.tools);
    const session = init.headers.get('mcp-session-id')!;
    const episode = init.headers.get('x-toolenv-episode')!;
    assert.equal((await trajectory(server.url, episode)).body.seed, 5);
    const closed = await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    assert.equal(closed.status, 200);
    assert.equal((await trajectory(server.url, episode)).status, 404);
    await expectProblem(
      await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } }),
      404,
    );
  });

  it('an initialize the transport refuses keeps neither a session nor an episode', async (t) => {
    const server = await startTestServer({ mcp: { maxSessions: 1 } });
    t.after(() => server.close());
    const refused = await initializeRequest(`${server.url}/mcp`, { accept: 'application/json' });
    assert.equal(refused.status, 406);
    assert.equal(refused.headers.get('x-toolenv-episode'), null);
    assert.equal(server.episodes.size, 0);
    const { client, transport } = await connect(server.url);
    assert.equal(server.episodes.size, 1);
    await transport.terminateSession();
    await client.close();
    assert.equal(server.episodes.size, 0);
  });

  it('bounds live sessions and closes idle ones, ending their episodes', async (t) => {
    const server = await startTestServer({ mcp: { maxSessions: 1 } });
    t.after(() => server.close());
    const first = await connect(server.url);
    const refused = await initializeRequest(`${server.url}/mcp`);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.match(String((await expectProblem(refused, 429)).detail), /at most 1 MCP sessions/);
    await first.transport.terminateSession();
    await first.client.close();
    const second = await connect(server.url);
    await second.transport.terminateSession();
    await second.client.close();

    let now = 1_000_000;
    const idle = await startTestServer({ mcp: { idleMs: 60_000, clock: () => now } });
    t.after(() => idle.close());
    const old = await connect(idle.url);
    now += 60_000;
    const kept = await connect(idle.url);
    assert.equal((await trajectory(idle.url, old.episode)).status, 200);
    now += 1;
    const fresh = await connect(idle.url);
    assert.equal((await trajectory(idle.url, old.episode)).status, 404);
    await assert.rejects(old.client.listTools(), /404|closed or expired/);
    await old.client.close();
    for (const { client, transport } of [kept, fresh]) {
      await transport.terminateSession();
      await client.close();
    }
  });
});
