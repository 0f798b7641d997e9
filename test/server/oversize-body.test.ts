import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { startTestServer } from './helpers.js';

const LIMIT = 1024;
const BODY = 2 * 1024 * 1024;
/** 32 pieces of 64 KiB, this far apart: about a second in all. */
const PACE_MS = 30;

/**
 * A client that writes its whole oversize body before it reads, on a connection it asks to close: the answer must
 * still reach it. A server that answered and closed at once reset the connection under the body still arriving,
 * and the client read ECONNRESET instead of its 413.
 */
function sendWholeThenRead(url: string, path: string, chunked: boolean): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.pause();
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.on('connect', async () => {
      const length = chunked ? 'transfer-encoding: chunked' : `content-length: ${BODY}`;
      socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\n`);
      socket.write(`content-type: application/json\r\n${length}\r\n\r\n`);
      const piece = Buffer.alloc(64 * 1024, 'a');
      for (let sent = 0; sent < BODY; sent += piece.length) {
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece;
        if (!socket.write(framed)) await new Promise((drained) => socket.once('drain', drained));
        // Slowly: a body that takes longer than @hono/node-server's own 500 ms of draining.
        await new Promise((paced) => setTimeout(paced, PACE_MS));
      }
      if (chunked) socket.write('0\r\n\r\n');
      socket.resume();
    });
  });
}

describe('an oversize body', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ bodyLimit: LIMIT });
  });
  after(() => server.close());

  for (const path of ['/v1/calls', '/v1/tools/petstore_test__getPetById/call'])
    for (const chunked of [false, true])
      it(`gets its 413 on ${path} when the client writes it all first (${chunked ? 'chunked' : 'declared'})`, async () => {
        const answer = await sendWholeThenRead(server.url, path, chunked);
        assert.match(answer, /^HTTP\/1\.1 413 /);
        assert.match(answer, /"limit":1024/);
      });
});
