import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { requestHeader, type JoinedHeader } from '../../src/server/request-header.js';

const NAMES: JoinedHeader[] = ['content-length', 'transfer-encoding', 'prefer', 'x-toolenv-episode'];

/** Each name as requestHeader reads it and as c.req.header reads it. */
function headerApp(): Hono {
  const app = new Hono();
  app.post('/headers', async (c) => {
    await c.req.text();
    return c.json(
      Object.fromEntries(
        NAMES.map((name) => [name, { fast: requestHeader(c, name) ?? null, hono: c.req.header(name) ?? null }]),
      ),
    );
  });
  return app;
}

type Seen = Record<JoinedHeader, { fast: string | null; hono: string | null }>;

/** A POST with headers exactly as listed (repeated names stay repeated on the wire; node adds no Host to a list). */
function post(port: number, rawHeaders: string[], body: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const headers = ['Host', `127.0.0.1:${port}`, ...rawHeaders];
    const req = request({ host: '127.0.0.1', port, path: '/headers', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text) as Seen));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('requestHeader', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer(getRequestListener(headerApp().fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads what c.req.header reads under @hono/node-server, repeated headers joined the same way', async () => {
    const seen = await post(
      port,
      [
        'Content-Length',
        '2',
        'Prefer',
        'code=429',
        'prefer',
        ' example=a ',
        'X-ToolEnv-Episode',
        'e1',
        'x-toolenv-episode',
        'e2',
      ],
      '{}',
    );
    for (const name of NAMES) assert.equal(seen[name].fast, seen[name].hono, name);
    assert.equal(seen.prefer.fast, 'code=429, example=a');
    assert.equal(seen['x-toolenv-episode'].fast, 'e1, e2');
    assert.equal(seen['content-length'].fast, '2');
    assert.equal(seen['transfer-encoding'].fast, null);
  });

  it('sees a chunked body as chunked, with no content length', async () => {
    const seen = await post(port, ['Transfer-Encoding', 'chunked'], '{}');
    for (const name of NAMES) assert.equal(seen[name].fast, seen[name].hono, name);
    assert.equal(seen['transfer-encoding'].fast, 'chunked');
    assert.equal(seen['content-length'].fast, null);
  });

  it('falls back to c.req.header where no node request is behind the app (app.request)', async () => {
    const response = await headerApp().request('/headers', {
      method: 'POST',
      headers: { prefer: 'dynamic=true', 'x-toolenv-episode': 'e3' },
      body: '{}',
    });
    const seen = (await response.json()) as Seen;
    assert.deepEqual(seen.prefer, { fast: 'dynamic=true', hono: 'dynamic=true' });
    assert.deepEqual(seen['x-toolenv-episode'], { fast: 'e3', hono: 'e3' });
  });
});
