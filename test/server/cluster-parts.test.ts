import assert from 'node:assert/strict';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from 'node:http';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { bodyTooLarge } from '../../src/server/body-limit.js';
import { forward } from '../../src/server/cluster/forward.js';
import { labelByWorker } from '../../src/server/cluster/metrics.js';
import { ownerOf, routedPath } from '../../src/server/cluster/owner.js';
import { injectionSeed } from '../../src/server/cluster/placement.js';
import { tempDir } from '../fixtures/tools.js';

describe('labelByWorker', () => {
  const a = [
    '# HELP calls_total Calls.',
    '# TYPE calls_total counter',
    'calls_total{source="cache"} 3',
    '# HELP latency_seconds Latency.',
    '# TYPE latency_seconds histogram',
    'latency_seconds_bucket{le="0.1"} 2',
    'latency_seconds_bucket{le="+Inf"} 3',
    'latency_seconds_sum 0.25',
    'latency_seconds_count 3',
    '# HELP process_start_time_seconds Start time.',
    '# TYPE process_start_time_seconds gauge',
    'process_start_time_seconds 1700000100',
    '',
  ].join('\n');
  const b = [
    '# HELP calls_total Calls.',
    '# TYPE calls_total counter',
    'calls_total{source="cache"} 4',
    'calls_total{source="synth"} 1',
    '# HELP latency_seconds Latency.',
    '# TYPE latency_seconds histogram',
    'latency_seconds_bucket{le="0.1"} 1',
    'latency_seconds_bucket{le="+Inf"} 1',
    'latency_seconds_sum 0.5',
    'latency_seconds_count 1',
    '# HELP process_start_time_seconds Start time.',
    '# TYPE process_start_time_seconds gauge',
    'process_start_time_seconds 1700000000',
    '',
  ].join('\n');

  it('keeps every worker’s series apart under a worker label, comments once and every family together', () => {
    assert.equal(
      labelByWorker([
        { worker: 0, text: a },
        { worker: 1, text: b },
      ]),
      [
        '# HELP calls_total Calls.',
        '# TYPE calls_total counter',
        'calls_total{worker="0",source="cache"} 3',
        'calls_total{worker="1",source="cache"} 4',
        'calls_total{worker="1",source="synth"} 1',
        '# HELP latency_seconds Latency.',
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{worker="0",le="0.1"} 2',
        'latency_seconds_bucket{worker="0",le="+Inf"} 3',
        'latency_seconds_sum{worker="0"} 0.25',
        'latency_seconds_count{worker="0"} 3',
        'latency_seconds_bucket{worker="1",le="0.1"} 1',
        'latency_seconds_bucket{worker="1",le="+Inf"} 1',
        'latency_seconds_sum{worker="1"} 0.5',
        'latency_seconds_count{worker="1"} 1',
        '# HELP process_start_time_seconds Start time.',
        '# TYPE process_start_time_seconds gauge',
        'process_start_time_seconds{worker="0"} 1700000100',
        'process_start_time_seconds{worker="1"} 1700000000',
        '',
      ].join('\n'),
    );
  });

  it('reports a worker’s counters as it gave them, whichever workers answered', () => {
    // Worker 0 missed this scrape: worker 1's counter is what it was, not a sum that dropped.
    assert.equal(labelByWorker([{ worker: 1, text: b }]).split('\n')[2], 'calls_total{worker="1",source="cache"} 4');
  });

  it('labels samples without labels or with empty ones, and reads label values with spaces', () => {
    assert.equal(
      labelByWorker([{ worker: 2, text: 'm{route="/a b"} 1\nn{} 2\no 3 1700000000000\n' }]),
      'm{worker="2",route="/a b"} 1\nn{worker="2"} 2\no{worker="2"} 3 1700000000000\n',
    );
  });

  it('leaves no blank line, and nothing for no exposition', () => {
    assert.doesNotMatch(
      labelByWorker([
        { worker: 0, text: `\n${a}\n\n` },
        { worker: 1, text: b },
      ]),
      /^\n|\n\n/,
    );
    assert.equal(labelByWorker([]), '');
  });
});

describe('ownerOf', () => {
  const request = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    ({ url, headers, method }) as unknown as IncomingMessage;
  const episode = (id: string) => ({ 'x-toolenv-episode': id });

  it('reads the worker from the episode a request names', () => {
    assert.equal(ownerOf(request('/v1/episodes/w1-abc/step', {}, 'POST')), 1);
    assert.equal(ownerOf(request('/v1/episodes/w12-abc')), 12);
    assert.equal(ownerOf(request('/v1/tools/x/call', episode('w3-abc'), 'POST')), 3);
    assert.equal(ownerOf(request('/v1/calls', episode('w3-abc'), 'POST')), 3);
    assert.equal(ownerOf(request('/apis/petstore/pets/1', episode('w0-abc'))), 0);
    assert.equal(ownerOf(request('/apis/petstore/pets', episode('w5-abc'), 'POST')), 5);
    assert.equal(ownerOf(request('/mcp', { 'mcp-session-id': 'w2-abc' }, 'POST')), 2);
    assert.equal(ownerOf(request('/mcp?episode=w4-abc&tools=a', {}, 'POST')), 4);
    assert.equal(ownerOf(request('/mcp', episode('w1-abc'), 'POST')), 1);
  });

  it('decides by the path before any header, as the app does', () => {
    // The episode routes read the id in their path and never the header.
    assert.equal(ownerOf(request('/v1/episodes/w1-B', episode('w0-A'))), 1);
    assert.equal(ownerOf(request('/v1/episodes/w1-B/step', episode('w0-A'), 'POST')), 1);
    // Routes that read no episode header are answered where they arrive.
    assert.equal(ownerOf(request('/metrics', episode('w1-A'))), undefined);
    assert.equal(ownerOf(request('/healthz', episode('w1-A'))), undefined);
    assert.equal(ownerOf(request('/v1/episodes', episode('w1-A'), 'POST')), undefined);
    assert.equal(ownerOf(request('/v1/tools/x', episode('w1-A'))), undefined);
    assert.equal(ownerOf(request('/v1/tools/x/call', episode('w1-A'))), undefined);
    assert.equal(ownerOf(request('/v1/tools/x/call/more', episode('w1-A'), 'POST')), undefined);
    assert.equal(ownerOf(request('/v1/search?q=x', episode('w1-A'))), undefined);
    // /mcp reads its session header first, then the episode a session joins or a 2026-07-28 request names.
    assert.equal(ownerOf(request('/mcp', { 'mcp-session-id': 'w2-S', ...episode('w1-A') }, 'POST')), 2);
    assert.equal(ownerOf(request('/mcp?episode=w3-B', episode('w1-A'), 'POST')), 3);
  });

  it('reads the path as hono routes it: percent-decoded, dot segments resolved', () => {
    assert.equal(ownerOf(request('/v1/episodes/%771-abc')), 1);
    assert.equal(ownerOf(request('/v1/episodes/w%31-abc/step', {}, 'POST')), 1);
    assert.equal(ownerOf(request('/v1/%65pisodes/w1-abc')), 1);
    assert.equal(ownerOf(request('/v1/tools/../episodes/w2-abc')), 2);
    assert.equal(ownerOf(request('/%6Dcp', { 'mcp-session-id': 'w2-abc' }, 'POST')), 2);
    assert.equal(ownerOf(request('/v1/tools/a%2Fb/call', episode('w3-abc'), 'POST')), 3);
    assert.equal(ownerOf(request('http://localhost:8080/v1/episodes/w1-abc')), 1);
  });

  it('names no worker for requests about no episode, or ids no worker made', () => {
    assert.equal(ownerOf(request('/v1/episodes')), undefined);
    assert.equal(ownerOf(request('/v1/tools/x/call', {}, 'POST')), undefined);
    assert.equal(ownerOf(request('/v1/episodes/3f2c-abc')), undefined);
    assert.equal(ownerOf(request('/mcp', {}, 'POST')), undefined);
    assert.equal(ownerOf(request('/mcpx', { 'mcp-session-id': 'w2-abc' }, 'POST')), undefined);
    assert.equal(ownerOf(request('//v1/episodes/w1-abc')), undefined);
  });
});

describe('routedPath', () => {
  it('is the path hono matches routes against', () => {
    assert.equal(routedPath('/metrics?x=1'), '/metrics');
    assert.equal(routedPath('/%6Detrics'), '/metrics');
    assert.equal(routedPath('/v1/episodes/w1-a%2Fb'), '/v1/episodes/w1-a%2Fb');
    assert.equal(routedPath('/a/./b/../c'), '/a/c');
  });
});

describe('injectionSeed', () => {
  it('keeps the server seed for worker 0 and gives every other worker a stream of its own', () => {
    assert.equal(injectionSeed(42, 0), 42);
    const seeds = [0, 1, 2, 3].map((index) => injectionSeed(42, index));
    assert.equal(new Set(seeds).size, 4);
    assert.equal(injectionSeed(42, 1), injectionSeed(42, 1));
    assert.notEqual(injectionSeed(42, 1), injectionSeed(43, 1));
    assert.notEqual(injectionSeed(2 ** 40, 1), injectionSeed(0, 1));
  });
});

describe('forward', () => {
  const limit = 1000;
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  /** A front on a TCP port passing every request to the worker at `socket`; its port. */
  async function front(socket: string, owner = 1): Promise<number> {
    const passing = createServer((incoming, outgoing) =>
      forward(incoming, outgoing, { owner, socket, bodyLimit: limit }),
    );
    servers.push(passing);
    await new Promise<void>((resolve) => passing.listen(0, '127.0.0.1', resolve));
    return (passing.address() as { port: number }).port;
  }

  /** A stand-in owner on a unix socket, and the port of a front before it. */
  async function ownerBehindFront(owner: RequestListener): Promise<number> {
    const socket = join(tempDir(), 'w1.sock');
    // No idle timeout: it would close a connection the front fails to release, hiding the failure.
    const upstream = createServer({ keepAliveTimeout: 0 }, owner);
    servers.push(upstream);
    await new Promise<void>((resolve) => upstream.listen(socket, resolve));
    return front(socket);
  }

  interface Reply {
    status: number;
    headers: IncomingHttpHeaders;
    body: string;
    /** False when the connection was cut before the answer's end. */
    complete: boolean;
  }

  /**
   * Sends the body whole, or chunked: `chunks` one per turn of the event loop, then `afterAnswer` once the answer's
   * head has come; `hold` leaves the body unfinished. Reads the answer to its end or its cut.
   */
  function send(
    port: number,
    init: {
      headers?: Record<string, string>;
      body?: string;
      chunks?: string[];
      afterAnswer?: string[];
      hold?: boolean;
    } = {},
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const asked = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/tools/t/call', headers: init.headers, agent: false },
        (answer) => {
          let body = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (body += chunk));
          answer.on('error', () => {});
          answer.on('close', () =>
            resolve({ status: answer.statusCode!, headers: answer.headers, body, complete: answer.complete }),
          );
          if (init.afterAnswer) write([...init.afterAnswer], true);
        },
      );
      // A client that sends on after its answer may find the connection closed: its answer is what counts.
      asked.on('error', (error) => (init.hold || init.afterAnswer ? undefined : reject(error)));
      const write = (chunks: string[], last: boolean) => {
        const chunk = chunks.shift();
        if (chunk !== undefined) asked.write(chunk, () => setImmediate(() => write(chunks, last)));
        else if (last && !init.hold) asked.end();
      };
      if (init.chunks) write([...init.chunks], !init.afterAnswer);
      else asked.end(init.body);
    });
  }

  it('refuses a declared body over the limit itself, as the app would, without passing it on', async () => {
    let reached = 0;
    const port = await ownerBehindFront((_, outgoing) => {
      reached++;
      outgoing.end('{}');
    });
    const reply = await send(port, { headers: { 'content-type': 'application/json' }, body: 'a'.repeat(limit + 1) });
    const expected = bodyTooLarge(limit, true);
    assert.equal(reply.status, 413);
    assert.equal(reply.body, await expected.text());
    assert.equal(reply.headers['content-type'], expected.headers.get('content-type'));
    assert.equal(reply.headers.connection, 'close');
    assert.equal(reached, 0);
  });

  it('refuses a chunked body once it passes the limit and cuts the owner’s copy short', async () => {
    let ownerSaw = -1;
    let ownerEnded = false;
    let ownerGone: () => void = () => {};
    const gone = new Promise<void>((resolve) => (ownerGone = resolve));
    const port = await ownerBehindFront((incoming) => {
      ownerSaw = 0;
      incoming.on('data', (chunk: Buffer) => (ownerSaw += chunk.length));
      incoming.on('end', () => (ownerEnded = true));
      incoming.on('close', () => ownerGone());
    });
    const reply = await send(port, {
      headers: { 'transfer-encoding': 'chunked' },
      chunks: Array.from({ length: 8 }, () => 'b'.repeat(300)),
      hold: true,
    });
    assert.equal(reply.status, 413, reply.body);
    assert.equal((JSON.parse(reply.body) as { limit: number }).limit, limit);
    await gone;
    assert.ok(ownerSaw >= 0 && ownerSaw <= limit, `the owner was passed ${ownerSaw} bytes`);
    assert.equal(ownerEnded, false);
  });

  it('passes a chunked body within the limit whole', async () => {
    const port = await ownerBehindFront((incoming, outgoing) => {
      let body = '';
      incoming.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => outgoing.end(body));
    });
    const reply = await send(port, {
      headers: { 'transfer-encoding': 'chunked' },
      chunks: ['x'.repeat(400), 'y'.repeat(400), 'z'.repeat(200)],
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.body, `${'x'.repeat(400)}${'y'.repeat(400)}${'z'.repeat(200)}`);
  });

  it('cuts the client off when the owner dies in the middle of an event stream', { timeout: 10_000 }, async () => {
    const port = await ownerBehindFront((_, outgoing) => {
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      outgoing.write('data: first\n\n', () => setImmediate(() => outgoing.socket!.destroy()));
    });
    const reply = await send(port);
    assert.equal(reply.status, 200);
    assert.equal(reply.body, 'data: first\n\n');
    assert.equal(reply.complete, false);
  });

  it('keeps the owner’s answer when the owner closes on the rest of the body after answering', async () => {
    const port = await ownerBehindFront((_, outgoing) => {
      outgoing.writeHead(400, { connection: 'close', 'content-type': 'application/json' });
      outgoing.end('{"refused":true}');
    });
    const reply = await send(port, {
      headers: { 'transfer-encoding': 'chunked' },
      chunks: ['{'],
      afterAnswer: ['"a"', ':', '1', '}'],
    });
    assert.equal(reply.status, 400);
    assert.equal(reply.body, '{"refused":true}');
    assert.equal(reply.complete, true);
  });

  it('releases the owner’s side when the client goes away before its body ends, answered or not', {
    timeout: 10_000,
  }, async () => {
    for (const answerFirst of [false, true]) {
      let ownerGone: () => void = () => {};
      const gone = new Promise<void>((resolve) => (ownerGone = resolve));
      let reached: () => void = () => {};
      const reaching = new Promise<void>((resolve) => (reached = resolve));
      const port = await ownerBehindFront((incoming, outgoing) => {
        // Once the owner has answered, node no longer closes the request itself: its connection is what closes.
        incoming.socket!.on('close', () => ownerGone());
        reached();
        if (answerFirst) outgoing.end('early');
      });
      const asked = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/calls',
        headers: { 'transfer-encoding': 'chunked' },
        agent: false,
      });
      asked.on('error', () => {});
      asked.on('response', (answer) => answer.resume().on('end', () => asked.destroy()));
      asked.write('{"calls":');
      await reaching;
      if (!answerFirst) asked.destroy();
      await gone;
    }
  });

  it('answers 503 for an owner that cannot be reached, without guessing why', async () => {
    const reply = await send(await front(join(tempDir(), 'nothing.sock'), 3), { body: '{}' });
    assert.equal(reply.status, 503);
    assert.equal(reply.headers['retry-after'], '1');
    const detail = (JSON.parse(reply.body) as { detail: string }).detail;
    assert.match(detail, /^worker 3, which holds this episode, cannot be reached \(ENOENT\)/);
    assert.doesNotMatch(detail, /restarting/);
  });

  it('drops the hop-by-hop headers and those the Connection header names, both ways', async () => {
    const port = await ownerBehindFront((incoming, outgoing) => {
      outgoing.setHeader('connection', 'x-hop');
      outgoing.setHeader('x-hop', '1');
      outgoing.setHeader('x-kept', '1');
      outgoing.end(JSON.stringify(incoming.headers));
    });
    const reply = await send(port, {
      headers: {
        connection: 'keep-alive, X-Private',
        'keep-alive': 'timeout=5',
        'x-private': 'secret',
        'x-toolenv-episode': 'w1-a',
      },
      body: '{}',
    });
    const seen = JSON.parse(reply.body) as IncomingHttpHeaders;
    assert.equal(seen['x-private'], undefined);
    assert.equal(seen['keep-alive'], undefined);
    assert.equal(seen['x-toolenv-episode'], 'w1-a');
    assert.equal(reply.headers['x-hop'], undefined);
    assert.equal(reply.headers['x-kept'], '1');
  });
});
