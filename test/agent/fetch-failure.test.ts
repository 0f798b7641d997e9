import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fetchIdempotent } from '../../src/agent/fetch-failure.js';

test('fetchIdempotent sends a request once more when its socket is reset, and only then', async (t) => {
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    // The first request meets a socket closed under it, as a kept-alive one the server timed out.
    if (requests === 1) return request.socket.destroy();
    response.end('ok');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  const response = await fetchIdempotent(url);
  assert.equal(await response.text(), 'ok');
  assert.equal(requests, 2);
  await assert.rejects(fetchIdempotent('http://127.0.0.1:9/healthz'), /fetch failed/);
});
