import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { LibraryStore } from '../../src/library/store.js';
import { createApp } from '../../src/server/app.js';
import type { RunningServer } from '../../src/server/serve.js';
import { HttpConnection } from '../../src/bench/http-client.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { expectProblem, postJson, rawRequest, rawSocket, startTestServer } from './helpers.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

function expectRawProblem(
  response: { status: number; headers: Record<string, unknown>; body: string },
  status: number,
): Record<string, unknown> {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers['content-type'], 'application/problem+json');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(body.status, status);
  return body;
}

describe('robustness', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('keeps an idle connection past what clients keep theirs for (httpx: 5 s, node: 5 s before)', async () => {
    // A trainer's client reuses a connection after the model's turn; a server closing it first resets that request.
    const connection = await HttpConnection.open(server.url);
    try {
      assert.equal((await connection.request('GET', '/healthz')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 6000));
      assert.equal((await connection.request('GET', '/healthz')).status, 200);
    } finally {
      connection.close();
    }
  });

  it('413 for a body over the limit, with or without Content-Length', async () => {
    const big = JSON.stringify({ arguments: { city: 'x'.repeat(1024 * 1024) } });
    const problem = await expectProblem(
      await postJson(`${server.url}/v1/tools/weather_forecast/call`, JSON.parse(big)),
      413,
    );
    assert.equal(problem.limit, 1024 * 1024);
    const chunked = await rawRequest(server.url, '/v1/tools/weather_forecast/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    });
    expectRawProblem(chunked, 413);
    await expectProblem(
      await fetch(`${server.url}/apis/petstore.test/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: big,
      }),
      413,
    );
  });

  it('400 for malformed JSON, naming the problem', async () => {
    for (const body of ['{"arguments":', '{arguments: {}}', 'nul', '{"a":1}}']) {
      const problem = await expectProblem(
        await fetch(`${server.url}/v1/tools/weather_forecast/call`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }),
        400,
      );
      assert.equal(problem.title, 'Malformed JSON');
    }
    await expectProblem(await fetch(`${server.url}/v1/calls`, { method: 'POST', body: '{"calls": [' }), 400);
  });

  it('deeply nested JSON is a 400, never a crash', async () => {
    for (const depth of [10_000, 500_000]) {
      const body = `{"arguments":{"city":"x","days":${nested(depth)}}}`;
      const problem = await expectProblem(
        await fetch(`${server.url}/v1/tools/weather_forecast/call`, { method: 'POST', body }),
        400,
      );
      assert.equal(problem.title, 'JSON too deep');
    }
    await expectProblem(
      await fetch(`${server.url}/v1/calls`, {
        method: 'POST',
        body: `{"calls":[{"tool":"weather_forecast","arguments":{"city":${nested(10_000)}}}]}`,
      }),
      400,
    );
    await expectProblem(
      await fetch(`${server.url}/apis/petstore.test/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: nested(10_000),
      }),
      400,
    );
    // Nesting inside a query value stays a string rather than being parsed.
    const query = await fetch(`${server.url}/apis/petstore.test/pets?limit=${nested(1000)}`);
    await expectProblem(query, 400);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });

  it('path traversal never leaves the routes: 404 or 400 problems', async () => {
    const paths = [
      '/apis/../../etc/passwd',
      '/apis/%2e%2e/%2e%2e/etc/passwd',
      '/apis/petstore.test/..%2F..%2Fetc%2Fpasswd',
      '/apis/petstore.test%2F..%2F..%2Fsecret/openapi.json',
      '/apis/..%2F..%2Fpackage.json/openapi.json',
      '/apis/%2e%2e%2fpackage.json',
      '/apis/..%5c..%5cpackage.json/openapi.json',
      '/v1/tools/..%2F..%2Fpackage.json',
      '/apis/petstore.test/pets/%C3%28',
    ];
    for (const path of paths) {
      const response = await rawRequest(server.url, path);
      assert.ok(response.status === 404 || response.status === 400, `${path} answered ${response.status}`);
      expectRawProblem(response, response.status);
      assert.doesNotMatch(response.body, /root:|"dependencies"/, path);
    }
    expectRawProblem(await rawRequest(server.url, '/apis/..\\..\\package.json'), 400);
  });

  it('405 with Allow for wrong methods on fixed routes', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/tools/weather_forecast', 'GET, HEAD'],
      ['GET', '/v1/tools/weather_forecast/call', 'POST'],
      ['GET', '/v1/calls', 'POST'],
      ['PUT', '/v1/tools', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/apis', 'GET, HEAD'],
      // The literal path declares POST only, though GET /v1/graph/{id} would route there too.
      ['OPTIONS', '/v1/graph/subgraph', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await fetch(`${server.url}${path}`, { method });
      const problem = await expectProblem(response, 405);
      assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
      assert.deepEqual(problem.allow, allow.split(', '));
    }
    // TRACE, which fetch refuses to send.
    const trace = await rawSocket(server.url, 'TRACE /apis HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.match(trace, /^HTTP\/1\.1 405 /);
    assert.match(trace, /\r\nallow: GET, HEAD\r\n/i);
  });

  it('404 problems for unknown routes and unicode ids', async () => {
    await expectProblem(await fetch(`${server.url}/nope`), 404);
    await expectProblem(await fetch(`${server.url}/v1/nope/deeper`), 404);
    const unicode = await expectProblem(
      await fetch(`${server.url}/v1/tools/${encodeURIComponent('инструмент✓')}`),
      404,
    );
    assert.match(String(unicode.detail), /инструмент✓/);
    await expectProblem(
      await postJson(`${server.url}/v1/tools/${encodeURIComponent('工具')}/call`, { arguments: {} }),
      404,
    );
    await expectProblem(await fetch(`${server.url}/apis/${encodeURIComponent('пример.рф')}/x`), 404);
  });

  it('requests node cannot parse get a problem before the socket closes', async () => {
    const garbage = await rawSocket(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(garbage, /^HTTP\/1\.1 400 /);
    assert.match(garbage, /application\/problem\+json/);
    const huge = await rawSocket(
      server.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assert.match(huge, /^HTTP\/1\.1 431 /);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });

  it(
    'CONNECT, which node hands to no request listener, is a 405 ' + 'problem naming the methods, not a dropped socket',
    async () => {
      const answer = await rawSocket(server.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 405 /);
      assert.match(head!, /\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n/);
      assert.match(head!, /content-type: application\/problem\+json/);
      const problem = JSON.parse(body!) as { status: number; allow: string[]; detail: string };
      assert.equal(problem.status, 405);
      assert.deepEqual(problem.allow, ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
      assert.match(problem.detail, /no proxy/);
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    },
  );
});

describe('unexpected errors', () => {
  it('are logged and answered 500 problem; the server keeps serving', async () => {
    const store = LibraryStore.open(writeFixtureLibrary());
    const logged: string[] = [];
    const app = createApp({
      store,
      simulator: {
        call: async () => {
          throw new Error('simulator exploded');
        },
      },
      log: (line) => logged.push(line),
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const problem = await expectProblem(
        await postJson(`${url}/v1/tools/weather_forecast/call`, { arguments: { city: 'x' } }),
        500,
      );
      assert.doesNotMatch(JSON.stringify(problem), /exploded/);
      assert.match(logged.join('\n'), /simulator exploded/);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      store.close();
    }
  });
});
