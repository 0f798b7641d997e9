import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LibraryStore } from '../../src/library/store.js';
import { callToolId, hostCheck } from '../../src/server/call-listener.js';
import { nodeListener } from '../../src/server/node-listener.js';
import type { RunningServer } from '../../src/server/serve.js';
import type { CallResult } from '../../src/simulator/types.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { expectProblem, postJson, rawRequest, rawSocket, startTestServer } from './helpers.js';

/** Sends the head of a POST and part of its body, then disconnects. */
function abandonBody(url: string, path: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise<void>((resolve) => {
    const req = httpRequest({
      host: hostname,
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '100' },
    });
    req.on('error', () => resolve());
    req.write('{"arguments":', () => setTimeout(() => req.destroy(), 50));
  }).then(() => new Promise((resolve) => setTimeout(resolve, 100)));
}

/**
 * What a client sees of an answer. Date and the connection headers differ between two requests by nature, and
 * Content-Length is only on the wire (checked against the body there).
 */
async function seen(response: Response) {
  const headers = [...response.headers]
    .filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name))
    .sort();
  return { status: response.status, headers, body: await response.text() };
}

describe('POST /v1/tools/{id}/call answered in front of hono', () => {
  let server: RunningServer;
  before(async () => {
    // No cache: every call reaches the responder, so both paths answer from the same source.
    server = await startTestServer({ cacheMode: 'off' });
  });
  after(() => server.close());

  const cases: { name: string; path: string; body: string; headers?: Record<string, string> }[] = [
    { name: 'a valid call', path: '/v1/tools/petstore_test__addPet/call', body: '{"arguments":{"name":"Rex"}}' },
    {
      name: 'a bodyless answer (204)',
      path: '/v1/tools/petstore_test__deletePet/call',
      body: '{"arguments":{"petId":3}}',
    },
    { name: 'an empty body', path: '/v1/tools/petstore_test__listPets/call', body: '' },
    { name: 'an unknown tool', path: '/v1/tools/petstore_test__nope/call', body: '{}' },
    { name: 'a percent-encoded id', path: '/v1/tools/petstore%5Ftest__listPets/call', body: '{}' },
    {
      name: 'arguments that break the schema',
      path: '/v1/tools/petstore_test__addPet/call',
      body: '{"arguments":{"name":7}}',
    },
    { name: 'malformed JSON', path: '/v1/tools/petstore_test__addPet/call', body: '{"arguments":' },
    { name: 'a body that is not an object', path: '/v1/tools/petstore_test__addPet/call', body: '[1]' },
    { name: 'an unknown member', path: '/v1/tools/petstore_test__addPet/call', body: '{"arguments":{},"tool":"x"}' },
    {
      name: 'a Prefer code',
      path: '/v1/tools/petstore_test__listPets/call',
      body: '{}',
      headers: { prefer: 'code=429' },
    },
    {
      name: 'a bad Prefer code',
      path: '/v1/tools/petstore_test__listPets/call',
      body: '{}',
      headers: { prefer: 'code=99' },
    },
    { name: 'a control query parameter', path: '/v1/tools/petstore_test__listPets/call?__code=404', body: '{}' },
    {
      name: 'an unknown episode',
      path: '/v1/tools/petstore_test__listPets/call',
      body: '{}',
      headers: { 'x-toolenv-episode': 'ep-missing' },
    },
  ];
  for (const { name, path, body, headers } of cases) {
    test(`${name}: the same answer over HTTP as from the hono route`, async () => {
      const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body };
      const response = await fetch(server.url + path, init);
      const length = response.headers.get('content-length');
      const overHttp = await seen(response);
      if (overHttp.body !== '') assert.equal(Number(length), Buffer.byteLength(overHttp.body));
      const throughHono = await seen(await server.app.request(path, init));
      assert.deepEqual(overHttp, throughHono);
    });
  }

  test('calls over HTTP are steps of the same episode as calls through the hono route', async () => {
    const created = (await (await postJson(`${server.url}/v1/episodes`, {})).json()) as { id: string };
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolenv-episode': created.id },
      body: '{"arguments":{}}',
    };
    const first = await fetch(`${server.url}/v1/tools/petstore_test__listPets/call`, init);
    const second = await server.app.request('/v1/tools/petstore_test__listPets/call', init);
    assert.equal(first.headers.get('x-toolenv-step'), '1');
    assert.equal(second.headers.get('x-toolenv-step'), '2');
  });

  test('a chunked body (no Content-Length) is answered by the app the same way', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const req = httpRequest(
        {
          host: hostname,
          port,
          path: '/v1/tools/petstore_test__addPet/call',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write('{"arguments":');
      req.end('{"name":"Rex"}}');
    });
    assert.equal(answer.status, 201);
    assert.deepEqual(JSON.parse(answer.body), { tool: 'petstore_test__addPet', args: { name: 'Rex' } });
  });

  test('calls answered in front of hono are counted in /metrics under the route pattern', async () => {
    const line = /toolenv_http_requests_total\{method="POST",route="\/v1\/tools\/:id\/call",status="200"\} (\d+)/;
    const count = async () => Number(line.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1] ?? 0);
    const before = await count();
    for (let i = 0; i < 3; i++) await postJson(`${server.url}/v1/tools/petstore_test__listPets/call`, {});
    assert.equal(await count(), before + 3);
    assert.match(await (await fetch(`${server.url}/metrics`)).text(), /toolenv_http_requests_in_flight 1\n/);
  });

  test('a client that goes away mid-body is neither answered nor left in flight, and the server goes on', async () => {
    await abandonBody(server.url, '/v1/tools/petstore_test__addPet/call');
    assert.match(await (await fetch(`${server.url}/metrics`)).text(), /toolenv_http_requests_in_flight 1\n/);
    assert.equal((await postJson(`${server.url}/v1/tools/petstore_test__listPets/call`, {})).status, 200);
  });
});

describe('errors on the call path', () => {
  test('an unexpected error is logged and answered 500 without its details; the server keeps serving', async () => {
    const store = LibraryStore.open(writeFixtureLibrary());
    const logged: string[] = [];
    const simulator = {
      call: async () => {
        throw new Error('simulator exploded');
      },
    };
    const server = createServer(nodeListener({ store, simulator, log: (line) => logged.push(line) }).listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const problem = await expectProblem(
        await postJson(`${url}/v1/tools/weather_forecast/call`, { arguments: { city: 'x' } }),
        500,
      );
      assert.doesNotMatch(JSON.stringify(problem), /exploded/);
      assert.match(logged.join('\n'), /POST \/v1\/tools\/weather_forecast\/call: Error: simulator exploded/);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      store.close();
    }
  });

  test('an answer that cannot be built or written is a 500 problem, logged; the connection stays usable', async () => {
    const store = LibraryStore.open(writeFixtureLibrary());
    const logged: string[] = [];
    const answers: CallResult[] = [
      { status: 200, body: { big: 1n }, source: 'synth', headers: {} },
      { status: 200, body: {}, source: 'synth', headers: { 'x-bad': 'line\nbreak' } },
    ];
    const simulator = { call: async () => answers.shift()! };
    const server = createServer(nodeListener({ store, simulator, log: (line) => logged.push(line) }).listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/tools/weather_forecast/call`;
    try {
      await expectProblem(await postJson(url, {}), 500);
      await expectProblem(await postJson(url, {}), 500);
      assert.equal(logged.length, 2);
      assert.match(logged[0]!, /BigInt/);
      assert.match(logged[1]!, /x-bad/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      store.close();
    }
  });

  test('clients that go away mid-body are not logged as errors, on the call path or through hono', async () => {
    const logged: string[] = [];
    const server = await startTestServer({ log: (line) => logged.push(line) });
    try {
      await abandonBody(server.url, '/v1/tools/petstore_test__addPet/call');
      await abandonBody(server.url, '/v1/calls');
      assert.deepEqual(logged, []);
      // Counted as nginx counts them (499, client closed request), on either path, and not as server errors.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(
        metrics,
        /toolenv_http_requests_total\{method="POST",route="\/v1\/tools\/:id\/call",status="499"\} 1\n/,
      );
      assert.match(metrics, /toolenv_http_requests_total\{method="POST",route="\/v1\/calls",status="499"\} 1\n/);
      assert.doesNotMatch(metrics, /status="500"/);
      assert.equal(
        (await postJson(`${server.url}/v1/calls`, { calls: [{ tool: 'petstore_test__listPets' }] })).status,
        200,
      );
    } finally {
      await server.close();
    }
  });
});

describe('the call path with an API key and a body limit', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ apiKey: 'sekret', bodyLimit: 64 });
  });
  after(() => server.close());
  const url = () => `${server.url}/v1/tools/petstore_test__listPets/call`;

  test('calls without the key, with a wrong one or with two Authorization headers are refused 401', async () => {
    await expectProblem(await postJson(url(), {}), 401);
    await expectProblem(await postJson(url(), {}, { authorization: 'Bearer wrong' }), 401);
    const twice = await rawRequest(server.url, '/v1/tools/petstore_test__listPets/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: ['Bearer sekret', 'Bearer sekret'] },
      body: '{}',
    });
    assert.equal(twice.status, 401);
    assert.equal((await postJson(url(), {}, { authorization: 'Bearer sekret' })).status, 200);
  });

  test('a body over the limit is refused 413, one within it answered', async () => {
    const body = await expectProblem(
      await postJson(url(), { arguments: { padding: 'x'.repeat(100) } }, { authorization: 'Bearer sekret' }),
      413,
    );
    assert.equal(body.limit, 64);
    assert.equal((await postJson(url(), { arguments: {} }, { authorization: 'Bearer sekret' })).status, 200);
  });
});

describe('requests the app would refuse or rewrite are left to it', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const call = (target: string, host: string | undefined, version = '1.1') =>
    rawSocket(
      server.url,
      `POST ${target} HTTP/${version}\r\n${host === undefined ? '' : `Host: ${host}\r\n`}Content-Type: ` +
        'application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );

  test('a Host with userinfo, a bad port, or none at all is refused 400', async () => {
    assert.match(await call('/v1/tools/petstore_test__listPets/call', 'a@b'), /^HTTP\/1\.1 400 /);
    assert.match(await call('/v1/tools/petstore_test__listPets/call', 'x:99999'), /^HTTP\/1\.1 400 /);
    assert.match(await call('/v1/tools/petstore_test__listPets/call', undefined, '1.0'), /^HTTP\/1\.1 400 /);
    assert.match(await call('/v1/tools/petstore_test__listPets/call', 'Localhost'), /^HTTP\/1\.1 200 /);
  });

  test('dot segments, backslashes and fragments in the target are routed as the app routes them', async () => {
    const host = new URL(server.url).host;
    assert.match(await call('/v1/tools/%2e/call', host), /^HTTP\/1\.1 405 /);
    assert.match(await call('/v1/tools/../call', host), /^HTTP\/1\.1 404 [\s\S]*no route POST \/v1\/call/);
    assert.match(await call('/v1/tools/a\\b/call', host), /^HTTP\/1\.1 400 /);
    assert.match(await call('/v1/tools/x#y/call', host), /^HTTP\/1\.1 405 /);
  });
});

test('hostCheck takes the Host values the app would use as they are', () => {
  const plain = hostCheck();
  for (const host of ['127.0.0.1:8080', 'localhost', 'Example.COM:60123', '[::1]:8080'])
    assert.equal(plain(host), true, host);
  for (const host of [undefined, '', 'a@b', 'x:99999', 'exa mple', '0x7f.1:80', 'localhost:80'])
    assert.equal(plain(host), false, String(host));
});

test('callToolId takes the one-segment id of a call path, percent-decoded, and nothing else', () => {
  assert.equal(callToolId('/v1/tools/weather_forecast/call'), 'weather_forecast');
  assert.equal(callToolId('/v1/tools/weather_forecast/call?__code=429'), 'weather_forecast');
  assert.equal(callToolId('/v1/tools/a%2Fb/call'), 'a/b');
  assert.equal(callToolId('/v1/tools/%E0%A4%A/call'), undefined);
  assert.equal(callToolId('/v1/tools//call'), undefined);
  assert.equal(callToolId('/v1/tools/a/b/call'), undefined);
  assert.equal(callToolId('/v1/tools/x/call/'), undefined);
  assert.equal(callToolId('/v1/tools/x/calls'), undefined);
  assert.equal(callToolId('http://127.0.0.1/v1/tools/x/call'), undefined);
  for (const odd of ['.', '..', '%2e', '%2E%2e', 'a\\b', 'x#y'])
    assert.equal(callToolId(`/v1/tools/${odd}/call`), undefined, odd);
});

describe('episode steps and turns answered in front of hono', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ cacheMode: 'off' });
  });
  after(() => server.close());

  /** Two episodes with one seed, one driven over HTTP and one through the hono route: their answers must match. */
  const twins = async (config: Record<string, unknown>) => {
    const create = async () =>
      ((await (await postJson(`${server.url}/v1/episodes`, { seed: 7, ...config })).json()) as { id: string }).id;
    return [await create(), await create()] as const;
  };
  const both = async (path: (id: string) => string, ids: readonly [string, string], body: string) => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const response = await fetch(server.url + path(ids[0]), init);
    const length = response.headers.get('content-length');
    const overHttp = await seen(response);
    assert.equal(Number(length), Buffer.byteLength(overHttp.body));
    // Refusals name their episode: the twin's id in its place.
    overHttp.body = overHttp.body.replaceAll(ids[0], ids[1]);
    const throughHono = await seen(await server.app.request(path(ids[1]), init));
    assert.deepEqual(overHttp, throughHono);
    return overHttp;
  };

  test(
    'JSON steps, their refusals and an unknown episode: ' + 'the same answers over HTTP as from the hono route',
    async () => {
      const ids = await twins({ max_steps: 2 });
      const step = (id: string) => `/v1/episodes/${id}/step`;
      const call = { type: 'tool_call', tool: 'petstore_test__addPet', arguments: { name: 'Rex' } };
      const ran = await both(
        step,
        ids,
        JSON.stringify({ actions: [call, { ...call, id: 'c2', arguments: { name: 'Bo' } }] }),
      );
      assert.equal(ran.status, 200);
      assert.equal((JSON.parse(ran.body) as { observations: unknown[] }).observations.length, 2);
      assert.equal((await both(step, ids, '{"actions":[]}')).status, 400);
      assert.equal((await both(step, ids, '{"actions":')).status, 400);
      assert.equal((await both(step, ids, JSON.stringify({ actions: [call] }))).status, 200);
      assert.equal((await both(step, ids, JSON.stringify({ actions: [call] }))).status, 409, 'done after max_steps');
      assert.equal((await both(step, ['missing', 'missing'], JSON.stringify({ actions: [call] }))).status, 404);
    },
  );

  test(
    'text turns: the same observations over HTTP as from the hono route, ' + 'and a step refused on a turn episode',
    async () => {
      const ids = await twins({});
      const turns = (id: string) => `/v1/episodes/${id}/turns`;
      const searched = await both(
        turns,
        ids,
        JSON.stringify({ text: '<think>Find it.</think>\n<search_tool>Add a pet</search_tool>' }),
      );
      assert.match(searched.body, /petstore_test__addPet/);
      const called = await both(
        turns,
        ids,
        JSON.stringify({
          text:
            '<think>Add.</think>\n<tool_call>{"tool": ' +
            '"petstore_test__addPet", "arguments": {"name": "Rex"}}</tool_call>',
          state: true,
        }),
      );
      assert.equal((JSON.parse(called.body) as { step: number }).step, 2);
      assert.equal((await both(turns, ids, '{"text": 7}')).status, 400);
      assert.equal(
        (await both((id) => `/v1/episodes/${id}/step`, ids, '{"actions":[{"type":"search_tool","query":"pet"}]}'))
          .status,
        409,
      );
    },
  );

  test(
    'creating and deleting episodes: ' + 'the same answers over HTTP as from the hono routes, refusals included',
    async () => {
      const create = async (body: string, over: 'http' | 'hono') => {
        const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
        const response =
          over === 'http'
            ? await fetch(`${server.url}/v1/episodes`, init)
            : await server.app.request('/v1/episodes', init);
        const length = response.headers.get('content-length');
        const answer = await seen(response);
        if (over === 'http') assert.equal(Number(length), Buffer.byteLength(answer.body));
        if (answer.status !== 201) return answer;
        // Written as JSON.stringify writes the created episode (its system message kept from an earlier one).
        assert.equal(JSON.stringify(JSON.parse(answer.body)), answer.body);
        // A new episode's id, creation time and (unless the body gives one) seed are its own: the rest must match.
        const { id, created_at, seed } = JSON.parse(answer.body) as { id: string; created_at: string; seed: number };
        assert.ok(answer.headers.some(([name, value]) => name === 'location' && value === `/v1/episodes/${id}`));
        const normalized = answer.body.replace(id, 'ID').replace(created_at, 'T').replace(`"seed":${seed},`, '');
        return { ...answer, headers: answer.headers.filter(([name]) => name !== 'location'), body: normalized };
      };
      for (const body of [
        '',
        '{"seed": 3, "max_turns": 4, "protocol": "react"}',
        '{"task": {"query": "Add a pet"}, "tools": ["petstore_test__addPet"]}',
        '{"max_steps": 0}',
        '{"unknown": 1}',
        '{"seed":',
      ]) {
        const overHttp = await create(body, 'http');
        assert.deepEqual(overHttp, await create(body, 'hono'), body);
        if (body === '') assert.equal(overHttp.status, 201);
      }
      const ids = await twins({});
      const end = async (id: string, over: 'http' | 'hono') => {
        const response =
          over === 'http'
            ? await fetch(`${server.url}/v1/episodes/${id}`, { method: 'DELETE' })
            : await server.app.request(`/v1/episodes/${id}`, { method: 'DELETE' });
        const answer = await seen(response);
        return {
          ...answer,
          body: answer.body.replaceAll(id, 'ID').replace(/"created_at":"[^"]+"/, '"created_at":"T"'),
        };
      };
      const ended = await end(ids[0], 'http');
      assert.equal(ended.status, 200);
      assert.equal((JSON.parse(ended.body) as { done: boolean }).done, true);
      assert.deepEqual(ended, await end(ids[1], 'hono'));
      assert.equal((await end(ids[0], 'http')).status, 404, 'deleted once');
      assert.deepEqual(await end('missing', 'http'), await end('missing', 'hono'));
    },
  );

  test('steps and turns answered in front of hono are counted in /metrics under their route patterns', async () => {
    const [id] = await twins({});
    const line = (route: string) =>
      new RegExp(
        `toolenv_http_requests_total\\{method="POST",route="${route.replaceAll('/', '\\/')}",status="200"\\} (\\d+)`,
      );
    const metrics = async () => (await fetch(`${server.url}/metrics`)).text();
    const before = await metrics();
    await postJson(`${server.url}/v1/episodes/${id}/turns`, {
      text: '<think>Find it.</think>\n<search_tool>Add a pet</search_tool>',
    });
    const after = await metrics();
    const count = (text: string, route: string) => Number(line(route).exec(text)?.[1] ?? 0);
    assert.equal(count(after, '/v1/episodes/:id/turns'), count(before, '/v1/episodes/:id/turns') + 1);
    await fetch(`${server.url}/v1/episodes/${id}`, { method: 'DELETE' });
    const ended = await metrics();
    const deletes = (text: string) =>
      Number(
        /toolenv_http_requests_total\{method="DELETE",route="\/v1\/episodes\/:id",status="200"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    assert.equal(deletes(ended), deletes(after) + 1);
    assert.match(ended, /toolenv_http_requests_total\{method="POST",route="\/v1\/episodes",status="201"\} \d+/);
  });
});
