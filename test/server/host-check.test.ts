import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { defaultAllowedHosts, LOOPBACK_HOSTS, parseAllowedHosts } from '../../src/server/host-check.js';
import type { RunningServer } from '../../src/server/serve.js';
import { rawRequest, rawSocket, startTestServer } from './helpers.js';

const call = '/v1/tools/petstore_test__getPetById/call';
const body = JSON.stringify({ arguments: { petId: 1 } });

function assertProblem(
  answer: { status: number; headers: Record<string, unknown>; body: string },
  status: number,
  title: RegExp,
): void {
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers['content-type'], 'application/problem+json');
  assert.match((JSON.parse(answer.body) as { title: string }).title, title);
  assert.equal(answer.headers['access-control-allow-origin'], undefined);
}

describe('Host and Origin checks (loopback server)', () => {
  let server: RunningServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('answers the loopback names, on the fast call path and through the app', async () => {
    for (const host of ['localhost', `localhost:${server.port}`, `127.0.0.1:${server.port}`, '[::1]', 'LOCALHOST']) {
      const called = await rawRequest(server.url, call, {
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
        body,
      });
      assert.equal(called.status, 200, `${host}: ${called.body}`);
      assert.equal((await rawRequest(server.url, '/healthz', { headers: { host } })).status, 200, host);
    }
  });

  it('refuses another Host (DNS rebinding) with a 403 problem, on every path', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, '127.0.0.1.evil.example']) {
      assertProblem(
        await rawRequest(server.url, call, {
          method: 'POST',
          headers: { host, 'content-type': 'application/json' },
          body,
        }),
        403,
        /Host not allowed/,
      );
      assertProblem(await rawRequest(server.url, '/v1/tools', { headers: { host } }), 403, /Host not allowed/);
    }
  });

  it("refuses a cross-site Origin (a web page's text/plain POST), takes its own", async () => {
    const crossSite = await rawRequest(server.url, call, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      body,
    });
    assertProblem(crossSite, 403, /Cross-site/);
    for (const origin of ['null', `http://localhost:${server.port + 1}`]) {
      assertProblem(
        await rawRequest(server.url, '/v1/episodes', { method: 'POST', headers: { origin }, body: '{}' }),
        403,
        /Cross-site/,
      );
    }
    const own = await rawRequest(server.url, call, {
      method: 'POST',
      headers: { origin: `http://127.0.0.1:${server.port}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(own.status, 200, own.body);
  });

  it("answers a request without Host with a 400 problem, not node's bare one", async () => {
    const text = await rawSocket(
      server.url,
      `POST ${call} HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /content-type: application\/problem\+json/i);
    assert.match(text, /"title":"Missing Host"/);
    const empty = await rawSocket(server.url, 'GET /healthz HTTP/1.1\r\nHost:\r\n\r\n');
    assert.match(empty, /^HTTP\/1\.1 400 [\s\S]*Missing Host/);
  });

  it('refuses an OpenEnv WebSocket from another site', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/openenv/ws`, {
      headers: { origin: 'https://evil.example' },
    });
    const status = await new Promise<number>((resolve, reject) => {
      ws.on('unexpected-response', (_request, response) => resolve(response.statusCode!));
      ws.on('open', () => reject(new Error('the cross-site WebSocket was opened')));
      ws.on('error', () => {});
    });
    assert.equal(status, 403);
  });
});

describe('--allowed-hosts', () => {
  it('reads names and *, always keeps the loopback names, refuses what is not a name', () => {
    assert.deepEqual(parseAllowedHosts('toolenv, Trainer.internal'), [
      ...LOOPBACK_HOSTS,
      'toolenv',
      'trainer.internal',
    ]);
    assert.equal(parseAllowedHosts('*'), 'any');
    for (const bad of ['', ' , ', 'http://x', 'x:8080', 'a b'])
      assert.throws(() => parseAllowedHosts(bad), /allowed-hosts/, bad);
  });

  it('defaults to the loopback names on loopback and to any host elsewhere (Docker service names)', () => {
    assert.deepEqual(defaultAllowedHosts('127.0.0.1'), LOOPBACK_HOSTS);
    assert.deepEqual(defaultAllowedHosts('::1'), LOOPBACK_HOSTS);
    assert.equal(defaultAllowedHosts('0.0.0.0'), 'any');
  });

  it('a server given names answers them and still refuses others', async () => {
    const server = await startTestServer({ allowedHosts: parseAllowedHosts('toolenv') });
    try {
      assert.equal((await rawRequest(server.url, '/healthz', { headers: { host: 'toolenv:8080' } })).status, 200);
      assertProblem(await rawRequest(server.url, '/healthz', { headers: { host: 'other' } }), 403, /Host not allowed/);
    } finally {
      await server.close();
    }
    const any = await startTestServer({ allowedHosts: 'any' });
    try {
      assert.equal((await rawRequest(any.url, '/healthz', { headers: { host: 'whatever.example' } })).status, 200);
    } finally {
      await any.close();
    }
  });
});
