import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { childPids } from '../../src/bench/processes.js';
import { packageRoot } from '../../src/paths.js';
import { environ, waitFor } from './process-helpers.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const bin = join(packageRoot, 'bin/toolenv');

interface Answer {
  status: number;
  worker: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request on a connection of its own: the primary hands connections to the workers in turn, so consecutive
 * requests reach different workers.
 */
function fresh(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers };
  return new Promise((resolve, reject) => {
    const asked = request(
      { host: hostname, port, path, method: init.method ?? 'GET', headers, agent: false },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode!,
            worker: answer.headers['x-toolenv-worker'] as string | undefined,
            headers: answer.headers,
            body: text,
          }),
        );
      },
    );
    asked.on('error', reject);
    asked.end(body);
  });
}

/** The worker index an id names (`w1-…` → "1"). */
const ownerOf = (id: string) => /^w(\d+)-/.exec(id)?.[1];

const getPet = (id: number) => ({ type: 'tool_call', tool: 'petstore_test__getPetById', arguments: { petId: id } });

describe('serve --workers 2', () => {
  let url: string;
  let child: ReturnType<typeof spawn>;
  let exit: Promise<number | null>;
  let stderr = '';

  before(async () => {
    const library = writeFixtureLibrary();
    const cache = join(tempDir(), 'cache.db');
    child = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--workers',
        '2',
        '--port',
        '0',
        '--library',
        library,
        '--cache',
        cache,
        '--error-rate',
        '0',
        '--json',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      exit.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
    });
    const ready = JSON.parse(line) as { url: string; tools: number; workers: number };
    assert.equal(ready.workers, 2);
    assert.equal(ready.tools, 5);
    url = ready.url;
  });

  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exit;
  });

  it('answers from both workers on one port', async () => {
    const workers = new Set<string | undefined>();
    for (let i = 0; i < 6; i++) {
      const answer = await fresh(url, '/healthz');
      assert.equal(answer.status, 200);
      workers.add(answer.worker);
    }
    assert.deepEqual([...workers].sort(), ['0', '1']);
  });

  it('keeps each episode on the worker that made it, whichever worker a request reaches', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await fresh(url, '/v1/episodes', { method: 'POST', body: { seed: i } });
      assert.equal(created.status, 201, created.body);
      const id = (JSON.parse(created.body) as { id: string }).id;
      assert.equal(ownerOf(id), created.worker, `${id} was made by worker ${created.worker}`);
      ids.push(id);
    }
    assert.deepEqual(new Set(ids.map(ownerOf)), new Set(['0', '1']));

    for (const id of ids) {
      for (let step = 0; step < 2; step++) {
        const stepped = await fresh(url, `/v1/episodes/${id}/step`, {
          method: 'POST',
          body: { actions: [getPet(step + 1)] },
        });
        assert.equal(stepped.status, 200, stepped.body);
        assert.equal(stepped.worker, ownerOf(id));
      }
      // A single call inside the episode, by header, on yet another connection.
      const called = await fresh(url, '/v1/tools/petstore_test__getPetById/call', {
        method: 'POST',
        headers: { 'x-toolenv-episode': id },
        body: { arguments: { petId: 9 } },
      });
      assert.equal(called.status, 200, called.body);
      assert.equal(called.worker, ownerOf(id));
      assert.equal(called.headers['x-toolenv-step'], '3');
      const trajectory = await fresh(url, `/v1/episodes/${id}`);
      assert.equal(trajectory.status, 200);
      assert.equal((JSON.parse(trajectory.body) as { steps: unknown[] }).steps.length, 3);
    }
    const metrics = (await fresh(url, '/metrics')).body;
    assert.ok(sumOver(metrics, 'toolenv_cluster_forwarded_requests_total') > 0, metrics);
    assert.match(metrics, /^toolenv_cluster_workers\{state="answered"\} 2$/m);
    // Each worker's counters under its own label: four episodes were made, whichever worker made each.
    assert.equal(
      sumOver(metrics, 'toolenv_http_requests_total{', 'method="POST",route="/v1/episodes",status="201"}'),
      4,
    );
  });

  it('serves /metrics of every worker, each series labelled with its worker, one block per family', async () => {
    const episode = await madeBy(url, '1');
    for (let i = 0; i < 2; i++) {
      // An episode header names no worker for /metrics: every worker is scraped, whichever one the request reaches.
      const answer = await fresh(url, '/metrics', { headers: { 'x-toolenv-episode': episode } });
      assert.equal(answer.status, 200);
      assert.match(answer.body, /^toolenv_cluster_workers\{state="answered"\} 2$/m);
      for (const worker of ['0', '1'])
        assert.match(answer.body, new RegExp(`^process_start_time_seconds\\{worker="${worker}"\\} \\d+$`, 'm'));
      assert.doesNotMatch(answer.body, /^$\n/m);
      const types = answer.body.split('\n').filter((line) => line.startsWith('# TYPE '));
      assert.equal(new Set(types).size, types.length, 'a family is declared twice');
      for (const line of answer.body.split('\n')) {
        if (line !== '' && !line.startsWith('#') && !line.startsWith('toolenv_cluster_workers{'))
          assert.match(line, /^[a-z_]+\{worker="[01]"/, line);
      }
    }
    const head = await fresh(url, '/metrics', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(String(head.headers['content-type']), /^text\/plain/);
    assert.equal(head.body, '');
  });

  it(
    'routes /v1/episodes/{id} by the id in its path, ' +
      'decoded as the app decodes it, whatever episode header comes along',
    async () => {
      const one = await madeBy(url, '1');
      const zero = await madeBy(url, '0');
      for (let i = 0; i < 4; i++) {
        const answer = await fresh(url, `/v1/episodes/${one}`, { headers: { 'x-toolenv-episode': zero } });
        assert.equal(answer.status, 200, answer.body);
        assert.equal(answer.worker, '1');
        const encoded = await fresh(url, `/v1/episodes/${one.replace('w', '%77')}`);
        assert.equal(encoded.status, 200, encoded.body);
        assert.equal(encoded.worker, '1');
      }
    },
  );

  it('refuses a body over the limit for another worker’s episode with the 413 its owner would give', async () => {
    const episode = await madeBy(url, '1');
    const answerers = new Set<string | undefined>();
    for (const chunked of [false, true]) {
      for (let i = 0; i < 3; i++) {
        const answer = await oversized(url, episode, chunked);
        assert.equal(answer.status, 413, answer.body);
        const problem = JSON.parse(answer.body) as { title: string; limit: number };
        assert.equal(problem.title, 'Payload Too Large');
        assert.equal(problem.limit, 1024 * 1024);
        answerers.add(answer.worker);
      }
    }
    // Some of these reached worker 0, which refused them itself rather than pass them on.
    assert.deepEqual([...answerers].sort(), ['0', '1']);
  });

  it('derives the seeds of episodes made without one from each worker’s own stream', async () => {
    const made = new Map<string, number>();
    while (made.size < 2) {
      const created = await fresh(url, '/v1/episodes', { method: 'POST', body: {} });
      const { id, seed } = JSON.parse(created.body) as { id: string; seed: number };
      if (!made.has(ownerOf(id)!)) made.set(ownerOf(id)!, seed);
    }
    // Both workers count their episodes from zero: without streams of their own, they would hand out the same seeds.
    assert.notEqual(made.get('0'), made.get('1'));
  });

  it(
    'keeps an OpenEnv WebSocket session on the worker its connection reached; ' + 'HTTP steps route by ?episode_id=',
    async () => {
      const owners = new Set<string | undefined>();
      for (let i = 0; i < 4; i++) {
        const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/openenv/ws`);
        await once(ws, 'open');
        const ask = async (message: unknown) => {
          ws.send(JSON.stringify(message));
          const [data] = await once(ws, 'message');
          return JSON.parse(String(data)) as { data: { observation: { episode_id: string; turn: number } } };
        };
        const id = (await ask({ type: 'reset', data: { task: { id: 't', query: 'Find pet 1.' } } })).data.observation
          .episode_id;
        owners.add(ownerOf(id));
        assert.equal((await ask({ type: 'step', data: { text: '<think>x</think>' } })).data.observation.turn, 1);
        const stepped = await fresh(url, `/openenv/step?episode_id=${id}`, {
          method: 'POST',
          body: { action: { text: '<think>y</think>' } },
        });
        assert.equal(stepped.status, 200, stepped.body);
        assert.equal(stepped.worker, ownerOf(id));
        assert.equal((JSON.parse(stepped.body) as { observation: { turn: number } }).observation.turn, 2);
        const state = await fresh(url, `/openenv/state?episode_id=${id}`);
        assert.equal(state.worker, ownerOf(id));
        assert.equal((JSON.parse(state.body) as { step_count: number }).step_count, 2);
        ws.close();
        await once(ws, 'close');
      }
      assert.deepEqual([...owners].sort(), ['0', '1']);
    },
  );

  it('routes an MCP session to the worker that opened it', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cluster-test', version: '1' } },
    };
    const accept = 'application/json, text/event-stream';
    const opened = await fresh(url, '/mcp', { method: 'POST', headers: { accept }, body: initialize });
    assert.equal(opened.status, 200, opened.body);
    const session = opened.headers['mcp-session-id'] as string;
    assert.equal(ownerOf(session), opened.worker);
    const headers = { accept, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await fresh(url, '/mcp', {
      method: 'POST',
      headers,
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    for (let i = 0; i < 2; i++) {
      const listed = await fresh(url, '/mcp', {
        method: 'POST',
        headers,
        body: { jsonrpc: '2.0', id: 2 + i, method: 'tools/list' },
      });
      assert.equal(listed.status, 200, listed.body);
      assert.equal(listed.worker, ownerOf(session));
      assert.match(listed.body, /search_tool/);
    }
    const closed = await fresh(url, '/mcp', { method: 'DELETE', headers });
    assert.equal(closed.status, 200);
  });

  it('restarts a worker that dies; its episodes are gone, the other worker’s stay', async () => {
    const made: Answer[] = [];
    while (new Set(made.map((answer) => answer.worker)).size < 2)
      made.push(await fresh(url, '/v1/episodes', { method: 'POST', body: {} }));
    const pids = childPids(child.pid!);
    assert.equal(pids.length, 2);
    const victim = made.find((answer) => answer.worker === '1')!;
    const survivor = made.find((answer) => answer.worker === '0')!;
    const victimPid = pids.find((pid) => environ(pid, 'TOOLENV_WORKER_INDEX') === '1')!;
    process.kill(victimPid, 'SIGKILL');
    await waitFor(() => /worker 1 is back/.test(stderr));
    const lost = await fresh(url, `/v1/episodes/${(JSON.parse(victim.body) as { id: string }).id}`);
    assert.equal(lost.status, 404, lost.body);
    const kept = await fresh(url, `/v1/episodes/${(JSON.parse(survivor.body) as { id: string }).id}`);
    assert.equal(kept.status, 200, kept.body);
    assert.ok(!childPids(child.pid!).includes(victimPid));
  });

  it('stops every worker and removes its sockets on SIGTERM', async () => {
    const pids = childPids(child.pid!);
    const sockets = environ(pids[0]!, 'TOOLENV_WORKER_SOCKETS')!;
    assert.ok(existsSync(join(sockets, 'w0.sock')));
    child.kill('SIGTERM');
    assert.equal(await exit, 0, stderr);
    for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `worker ${pid} still runs`);
    assert.ok(!existsSync(sockets), `${sockets} is left behind`);
  });
});

describe('serve --workers: refusals', () => {
  it('exits 2 with one line for a bad count or a local model in a cluster', () => {
    const library = writeFixtureLibrary();
    const cases: [string[], RegExp][] = [
      [['--workers', '0'], /--workers must be an integer between 1 and 256/],
      [['--workers', 'many'], /--workers must be an integer/],
      [['--workers', '2', '--responder', 'llama', '--model', 'x.gguf'], /cannot serve --responder llama/],
      [['--workers', '2', '--responder', 'oracle'], /unknown responder "oracle"/],
      [['--workers', '2', '--library', join(tempDir(), 'nothing-here')], /no library at/],
    ];
    for (const [args, message] of cases) {
      const result = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--library', library, ...args], {
        encoding: 'utf8',
      });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });
});

/** The sum of a metric's samples over every worker; `labels` picks the samples whose labels end so. */
function sumOver(metrics: string, name: string, labels = ''): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(name) && line.slice(0, line.lastIndexOf(' ')).endsWith(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** An episode made by the given worker (connections reach the workers in turn). */
async function madeBy(url: string, worker: string): Promise<string> {
  for (;;) {
    const created = await fresh(url, '/v1/episodes', { method: 'POST', body: {} });
    const { id } = JSON.parse(created.body) as { id: string };
    if (created.worker === worker) return id;
  }
}

/**
 * A call inside an episode with a body over the default 1 MiB limit: declared 2 MiB with nothing sent (the limit is
 * judged on the header), or 1 MiB + 1 byte sent chunked. Either way it sends no more than the server reads before it
 * refuses, so the refusal is not lost to a connection reset.
 */
function oversized(url: string, episode: string, chunked: boolean): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const limit = 1024 * 1024;
  const headers = {
    'content-type': 'application/json',
    'x-toolenv-episode': episode,
    ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(2 * limit) }),
  };
  return new Promise((resolve, reject) => {
    const asked = request(
      { host: hostname, port, path: '/v1/tools/petstore_test__getPetById/call', method: 'POST', headers, agent: false },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => {
          asked.destroy();
          resolve({
            status: answer.statusCode!,
            worker: answer.headers['x-toolenv-worker'] as string | undefined,
            headers: answer.headers,
            body: text,
          });
        });
      },
    );
    asked.on('error', reject);
    if (!chunked) return void asked.flushHeaders();
    const body = Buffer.alloc(limit + 1, 'a');
    let sent = 0;
    const next = () => {
      if (sent < body.length) asked.write(body.subarray(sent, (sent += 64 * 1024)), () => setImmediate(next));
    };
    next();
  });
}
