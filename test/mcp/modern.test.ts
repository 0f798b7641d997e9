import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, ProtocolErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { SearchObservation } from '../../src/wire/episodes.js';
import type { RunningServer } from '../../src/server/serve.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { postJson, startTestServer } from '../server/helpers.js';
import { ENVELOPE, callTool, connect, modernRequest, rpcBody, textJson, trajectory } from './helpers.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

async function newEpisode(url: string): Promise<string> {
  return ((await (await postJson(`${url}/v1/episodes`, { seed: 7 })).json()) as { id: string }).id;
}

describe('MCP 2026-07-28 at /mcp, on the wire', () => {
  let server: RunningServer;
  let mcp: string;
  before(async () => {
    server = await startTestServer({ library: writeRetrievalLibrary() });
    mcp = `${server.url}/mcp`;
  });
  after(() => server.close());

  it('answers server/discover without a session, naming no session', async () => {
    const response = await modernRequest(mcp, 'server/discover', {}, { id: 'd1' });
    assert.equal(response.headers.get('mcp-session-id'), null);
    const { id, result } = await rpcBody(response, 200);
    assert.equal(id, 'd1');
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.supportedVersions, ['2026-07-28']);
    assert.deepEqual(result.capabilities, { tools: {} });
    assert.deepEqual([result.ttlMs, result.cacheScope], [0, 'private']);
    assert.equal(result._meta[SERVER_INFO].name, 'toolenv');
    assert.match(result.instructions, /x-toolenv-episode header or \?episode=/);
  });

  it(
    'rejects a request that breaks the transport with the JSON-RPC error the ladder names, ' + 'echoing its id',
    async () => {
      const cases: { name: string; response: Promise<Response>; status: number; code: number; message: RegExp }[] = [
        {
          name: 'no envelope',
          response: fetchRaw({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }, modernHeaders('tools/list')),
          status: 400,
          code: -32602,
          message: /params\._meta must be an object/,
        },
        {
          name: 'no client capabilities',
          response: fetchRaw(
            {
              jsonrpc: '2.0',
              id: 5,
              method: 'tools/list',
              params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
            },
            modernHeaders('tools/list'),
          ),
          status: 400,
          code: -32602,
          message: /missing the required envelope key\(s\): io\.modelcontextprotocol\/clientCapabilities/,
        },
        {
          name: 'no version header',
          response: modernRequest(mcp, 'tools/list', {}, { id: 5, headers: { 'mcp-protocol-version': null } }),
          status: 400,
          code: -32020,
          message: /MCP-Protocol-Version header is missing/,
        },
        {
          name: 'a legacy version header',
          response: modernRequest(mcp, 'tools/list', {}, { id: 5, headers: { 'mcp-protocol-version': '2025-11-25' } }),
          status: 400,
          code: -32020,
          message: /"2025-11-25"/,
        },
        {
          name: 'Mcp-Method disagrees',
          response: modernRequest(mcp, 'tools/list', {}, { id: 5, headers: { 'mcp-method': 'tools/call' } }),
          status: 400,
          code: -32020,
          message: /Mcp-Method header is "tools\/call"/,
        },
        {
          name: 'Mcp-Name disagrees',
          response: modernRequest(
            mcp,
            'tools/call',
            { name: 'search_tool' },
            { id: 5, headers: { 'mcp-name': 'call_tool' } },
          ),
          status: 400,
          code: -32020,
          message: /Mcp-Name header is "call_tool"; it must repeat the body's name "search_tool"/,
        },
        {
          name: 'Mcp-Name missing',
          response: modernRequest(mcp, 'tools/call', { name: 'search_tool' }, { id: 5, headers: { 'mcp-name': null } }),
          status: 400,
          code: -32020,
          message: /Mcp-Name header is missing/,
        },
        {
          name: 'initialize',
          response: modernRequest(mcp, 'initialize', {}, { id: 5 }),
          status: 404,
          code: -32601,
          message: /Method not found/,
        },
        {
          name: 'ping',
          response: modernRequest(mcp, 'ping', {}, { id: 5 }),
          status: 404,
          code: -32601,
          message: /Method not found/,
        },
      ];
      for (const { name, response, status, code, message } of cases) {
        const { id, error } = await rpcBody(await response, status);
        assert.equal(id, 5, name);
        assert.equal(error?.code, code, name);
        assert.match(error!.message, message, name);
      }
    },
  );

  it('answers an unsupported version with -32022 and the versions it speaks', async () => {
    const envelope = { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const response = fetchRaw(
      { jsonrpc: '2.0', id: 'v', method: 'server/discover', params: { _meta: envelope } },
      { ...modernHeaders('server/discover'), 'mcp-protocol-version': '2099-01-01' },
    );
    const { id, error } = await rpcBody(await response, 400);
    assert.equal(id, 'v');
    assert.deepEqual(error, {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
    const method = await rpcBody(await modernRequest(mcp, 'initialize', {}, { id: 6 }), 404);
    assert.equal(method.error?.data, 'initialize');
  });

  it('answers bodies that are no single request with id null, and accepts notifications with 202', async () => {
    const batch = await rpcBody(
      await fetchRaw(
        [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }],
        modernHeaders('tools/list'),
      ),
      400,
    );
    assert.deepEqual([batch.id, batch.error?.code], [null, -32600]);
    const parse = await rpcBody(
      await fetch(mcp, { method: 'POST', headers: modernHeaders('tools/list'), body: '{' }),
      400,
    );
    assert.deepEqual([parse.id, parse.error?.code], [null, -32700]);
    const notified = await fetchRaw(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: ENVELOPE } },
      modernHeaders('notifications/cancelled'),
    );
    assert.equal(notified.status, 202);
    assert.equal(await notified.text(), '');
    const unsupported = await rpcBody(
      await fetchRaw(
        { jsonrpc: '2.0', method: 'notifications/cancelled' },
        { ...modernHeaders('notifications/cancelled'), 'mcp-protocol-version': '2099-01-01' },
      ),
      400,
    );
    assert.deepEqual([unsupported.id, unsupported.error?.code], [null, -32022]);
  });

  it('reads a base64-sentinel Mcp-Name, and ignores an Mcp-Session-Id', async () => {
    const episode = await newEpisode(server.url);
    const name = `=?base64?${Buffer.from('search_tool').toString('base64')}?=`;
    const response = await modernRequest(
      mcp,
      'tools/call',
      { name: 'search_tool', arguments: { query: 'weather' } },
      { headers: { 'mcp-name': name, 'x-toolenv-episode': episode, 'mcp-session-id': 'nope' } },
    );
    assert.equal(response.headers.get('mcp-session-id'), null);
    assert.equal((await rpcBody(response, 200)).result.isError, undefined);
    const corrupt = await modernRequest(
      mcp,
      'tools/call',
      { name: 'search_tool', arguments: { query: 'weather' } },
      { headers: { 'mcp-name': '=?base64?c2VhcmNoX3Rvb2w?=', 'x-toolenv-episode': episode } },
    );
    assert.equal((await rpcBody(corrupt, 400)).error?.code, -32020);
  });

  it('lists tools in the same order every time, each page with its cache hints', async () => {
    const first = (await rpcBody(await modernRequest(mcp, 'tools/list'), 200)).result;
    const second = (await rpcBody(await modernRequest(mcp, 'tools/list'), 200)).result;
    assert.deepEqual(
      first.tools.map((tool: { name: string }) => tool.name),
      ['search_tool', 'call_tool'],
    );
    assert.deepEqual(second, first);
    assert.deepEqual([first.resultType, first.ttlMs, first.cacheScope], ['complete', 60_000, 'private']);
    assert.equal(first._meta[SERVER_INFO].name, 'toolenv');
    const cursor = await rpcBody(await modernRequest(mcp, 'tools/list', { cursor: 'bogus' }), 400);
    assert.match(cursor.error!.message, /cursor "bogus"/);
  });

  it(
    'records tool calls into the episode the header or the URL names, ' +
      'and answers it in the x-toolenv-episode header',
    async () => {
      const episode = await newEpisode(server.url);
      const byHeader = await modernRequest(
        mcp,
        'tools/call',
        { name: 'search_tool', arguments: { query: 'find a pet by its id', k: 2 } },
        { headers: { 'x-toolenv-episode': episode } },
      );
      assert.equal(byHeader.headers.get('x-toolenv-episode'), episode);
      const search = (await rpcBody(byHeader, 200)).result;
      assert.equal(search.resultType, 'complete');
      assert.equal((search.structuredContent as SearchObservation).results[0]!.id, 'petstore_test__getPetById');
      assert.equal(search._meta['toolenv/episode'], episode);
      assert.equal(search._meta['toolenv/step'], 1);
      assert.equal(search._meta[SERVER_INFO].name, 'toolenv');

      const byQuery = await modernRequest(`${mcp}?episode=${episode}`, 'tools/call', {
        name: 'call_tool',
        arguments: { tool: 'weather_forecast', arguments: { city: 'Oslo' } },
      });
      const call = (await rpcBody(byQuery, 200)).result;
      assert.deepEqual(JSON.parse(call.content[0].text), { tool: 'weather_forecast', args: { city: 'Oslo' } });
      assert.equal(call._meta['toolenv/step'], 2);

      const failed = (
        await rpcBody(
          await modernRequest(`${mcp}?episode=${episode}`, 'tools/call', {
            name: 'call_tool',
            arguments: { tool: 'weather_forecast', arguments: { days: 99 } },
          }),
          200,
        )
      ).result;
      assert.equal(failed.isError, true);
      assert.equal(JSON.parse(failed.content[0].text).status, 400);

      const { body } = await trajectory(server.url, episode);
      assert.deepEqual(
        body.steps.map((step) => step.actions[0]!.type),
        ['search_tool', 'tool_call', 'tool_call'],
      );
    },
  );

  it('refuses what names no usable episode or names a tool not listed, recording nothing', async () => {
    const episode = await newEpisode(server.url);
    const call = (url: string, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
      modernRequest(url, 'tools/call', { name, arguments: args }, { headers });
    const refusals: [Promise<Response>, RegExp][] = [
      [
        call(mcp, 'search_tool', { query: 'weather' }),
        /tools\/call records into an episode: create one with POST \/v1\/episodes/,
      ],
      [call(`${mcp}?episode=${episode}`, 'weather_forecast', { city: 'Oslo' }), /^Unknown tool: weather_forecast$/],
      [
        call(`${mcp}?episode=${episode}`, 'search_tool', { query: 'weather' }, { 'x-toolenv-episode': 'ep_other' }),
        /name different episodes/,
      ],
      [call(`${mcp}?seed=7`, 'search_tool', { query: 'weather' }), /configure a new episode.*POST \/v1\/episodes/],
      [call(`${mcp}?colour=red`, 'search_tool', { query: 'weather' }), /unknown query parameter "colour"/],
      [modernRequest(`${mcp}?working_set`, 'tools/list'), /working_set lists an episode's working set/],
      [modernRequest(`${mcp}?working_set&episode=ep_gone`, 'tools/list'), /no episode "ep_gone"/],
      [
        modernRequest(
          mcp,
          'tools/call',
          { name: 'search_tool', arguments: 'weather' },
          { headers: { 'x-toolenv-episode': episode } },
        ),
        /params\.arguments must be a JSON object/,
      ],
    ];
    for (const [response, message] of refusals) {
      const { error } = await rpcBody(await response, 400);
      assert.equal(error?.code, -32602);
      assert.match(error!.message, message);
    }
    const gone = (
      await rpcBody(await call(mcp, 'search_tool', { query: 'weather' }, { 'x-toolenv-episode': 'ep_gone' }), 200)
    ).result;
    assert.equal(gone.isError, true);
    assert.equal(JSON.parse(gone.content[0].text).status, 404);
    assert.equal((await trajectory(server.url, episode)).body.steps.length, 0);
  });

  it("lists an episode's working set as it grows, for any request that names the episode", async () => {
    const episode = await newEpisode(server.url);
    const url = `${mcp}?working_set&episode=${episode}`;
    const names = async () =>
      (await rpcBody(await modernRequest(url, 'tools/list'), 200)).result.tools.map(
        (tool: { name: string }) => tool.name,
      );
    assert.deepEqual(await names(), ['search_tool']);
    assert.equal((await rpcBody(await modernRequest(url, 'tools/list'), 200)).result.ttlMs, 0);
    await rpcBody(
      await modernRequest(url, 'tools/call', {
        name: 'search_tool',
        arguments: { query: 'weather forecast for a city', k: 1 },
      }),
      200,
    );
    assert.deepEqual(await names(), ['search_tool', 'weather_forecast']);
    const discover = (await rpcBody(await modernRequest(url, 'server/discover'), 200)).result;
    assert.match(discover.instructions, new RegExp(`episode ${episode}: GET /v1/episodes/${episode}`));
  });

  it('serves a 2025-11-25 session and stateless requests side by side, into one episode', async () => {
    const episode = await newEpisode(server.url);
    const legacy = await connect(server.url, { query: `?episode=${episode}` });
    try {
      await callTool(legacy.client, 'call_tool', { tool: 'weather_forecast', arguments: { city: 'Oslo' } });
      await rpcBody(
        await modernRequest(
          mcp,
          'tools/call',
          { name: 'call_tool', arguments: { tool: 'weather_forecast', arguments: { city: 'Lima' } } },
          { headers: { 'x-toolenv-episode': episode } },
        ),
        200,
      );
      const late = await callTool(legacy.client, 'search_tool', { query: 'weather' });
      assert.equal(late._meta?.['toolenv/step'], 3);
      assert.equal(textJson(late).query, 'weather');
    } finally {
      await legacy.transport.terminateSession();
      await legacy.client.close();
    }
    assert.equal((await trajectory(server.url, episode)).body.steps.length, 3);
  });

  function modernHeaders(method: string): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    };
  }

  function fetchRaw(body: unknown, headers: Record<string, string>): Promise<Response> {
    return fetch(mcp, { method: 'POST', headers, body: JSON.stringify(body) });
  }
});

describe('MCP 2026-07-28 through the official 2.4 TypeScript client', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ library: writeRetrievalLibrary() });
  });
  after(() => server.close());

  async function open(
    url: string,
    mode: 'auto' | 'legacy' | { pin: string } | undefined,
    headers?: Record<string, string>,
  ): Promise<Client> {
    const client = new Client(
      { name: 'toolenv-test', version: '1.0.0' },
      mode === undefined ? {} : { versionNegotiation: { mode } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}));
    return client;
  }

  it('pinned to 2026-07-28: discovers, lists and calls into the episode the header names', async () => {
    const episode = await newEpisode(server.url);
    const client = await open(`${server.url}/mcp`, { pin: '2026-07-28' }, { 'x-toolenv-episode': episode });
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['search_tool', 'call_tool'],
      );
      const result = await client.callTool({
        name: 'search_tool',
        arguments: { query: 'weather forecast for a city' },
      });
      assert.equal(result._meta?.['toolenv/episode'], episode);
      await assert.rejects(
        client.callTool({ name: 'nope', arguments: {} }),
        (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams,
      );
    } finally {
      await client.close();
    }
    assert.equal((await trajectory(server.url, episode)).body.steps.length, 1);
  });

  it('auto mode lands on 2026-07-28; no negotiation option keeps the 2025 handshake and its session', async () => {
    const episode = await newEpisode(server.url);
    const auto = await open(`${server.url}/mcp?category=financial&episode=${episode}`, 'auto');
    try {
      assert.equal(auto.getProtocolEra(), 'modern');
      const { tools } = await auto.listTools();
      assert.ok(tools.length > 0);
      const first = tools[0]!;
      const result = await auto.callTool({ name: first.name, arguments: {} });
      assert.equal(result._meta?.['toolenv/episode'], episode);
    } finally {
      await auto.close();
    }
    const legacy = await open(`${server.url}/mcp?episode=${episode}`, undefined);
    try {
      assert.equal(legacy.getProtocolEra(), 'legacy');
      const result = await legacy.callTool({ name: 'search_tool', arguments: { query: 'weather' } });
      assert.equal(result._meta?.['toolenv/step'], 2);
    } finally {
      await legacy.close();
    }
  });
});
