/**
 * Two real `toolenv serve` processes on different ports sharing one PostgreSQL cache (test/fixtures/postgres.ts),
 * their model a counting OpenAI-compatible server in this process: answers cross replicas, and identical misses on
 * both are one model call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { freePort } from '../../src/server/free-port.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { postgresSkip, startPostgres, type TestPostgres } from '../fixtures/postgres.js';

const bin = join(packageRoot, 'bin/toolenv');
const TOOL = 'petstore_test__addPet';

interface Replica {
  url: string;
  stop(): Promise<number | null>;
}

/** Starts `toolenv serve --json`; resolves once it listens. */
function serve(args: string[]): Promise<Replica> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--error-rate', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      const { url } = JSON.parse(stdout.slice(0, newline)) as { url: string };
      resolve({
        url,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
  });
}

/** Runs `toolenv serve` to its end; resolves with its exit code and stderr. */
function serveFailing(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

/**
 * An OpenAI-compatible model that takes 1.5 s per answer (every caller of a test arrives within it) and numbers its
 * answers, so a second call would show.
 */
function countingModel(): { server: Server; calls: () => number } {
  let calls = 0;
  const server = createServer((request, response) => {
    if (request.url?.endsWith('/models')) return response.end(JSON.stringify({ data: [{ id: 'counting' }] }));
    request.resume().on('end', () => {
      const n = ++calls;
      setTimeout(() => {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            choices: [
              {
                message: { role: 'assistant', content: JSON.stringify({ id: n, name: `answer ${n}` }) },
                finish_reason: 'stop',
              },
            ],
          }),
        );
      }, 1500);
    });
  });
  return { server, calls: () => calls };
}

async function call(replica: Replica, args: unknown): Promise<{ source: string | null; body: string }> {
  const response = await fetch(`${replica.url}/v1/tools/${TOOL}/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ arguments: args }),
  });
  assert.equal(response.status, 201);
  return { source: response.headers.get('x-toolenv-source'), body: await response.text() };
}

async function metric(replica: Replica, name: string): Promise<number> {
  const text = await (await fetch(`${replica.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
}

describe('two replicas sharing one PostgreSQL cache', { skip: postgresSkip }, () => {
  let postgres: TestPostgres;
  let database: string;
  const model = countingModel();
  const library = writeFixtureLibrary();
  let replicas: Replica[] = [];

  before(async () => {
    postgres = await startPostgres();
    database = await postgres.database();
    const port = await freePort();
    await new Promise<void>((resolve) => model.server.listen(port, '127.0.0.1', resolve));
    const flags = [
      '--library',
      library,
      '--cache',
      database,
      '--responder',
      'openai',
      '--responder-url',
      `http://127.0.0.1:${port}`,
    ];
    replicas = await Promise.all([serve(flags), serve(flags)]);
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    model.server.close();
    await postgres.stop();
  });

  test('a call answered by one replica is a cache hit on the other, with the identical body', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const before = model.calls();
    const first = await call(a, { name: 'Milo' });
    assert.equal(first.source, 'model');
    const second = await call(b, { name: 'Milo' });
    assert.equal(second.source, 'cache');
    assert.equal(second.body, first.body);
    assert.equal(model.calls(), before + 1);
  });

  test('identical misses on both replicas at once are one model call; every caller gets its answer', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const before = model.calls();
    const answers = await Promise.all(
      [a, b, a, b, a, b].map((replica) => call(replica, { name: 'Nala', status: 'new' })),
    );
    assert.equal(model.calls(), before + 1, 'one model call among six callers on two replicas');
    assert.equal(new Set(answers.map((answer) => answer.body)).size, 1, 'one body for all');
    assert.equal(
      answers.filter((answer) => answer.source === 'model').length,
      3,
      'the claiming replica’s callers share its model call',
    );
    assert.equal(
      answers.filter((answer) => answer.source === 'cache').length,
      3,
      'the other replica’s callers read the stored answer',
    );
    assert.equal((await metric(a, 'toolenv_cache_shared_total')) + (await metric(b, 'toolenv_cache_shared_total')), 1);
  });

  test('a read-only replica serves what the others stored and stores nothing', async () => {
    const reader = await serve(['--library', library, '--cache', database, '--cache-mode', 'read-only']);
    try {
      const hit = await call(reader, { name: 'Milo' });
      assert.equal(hit.source, 'cache');
      assert.equal(hit.body, (await call(replicas[0]!, { name: 'Milo' })).body);
      assert.equal((await call(reader, { name: 'Unseen' })).source, 'synth');
      assert.equal(
        (await call(replicas[0]!, { name: 'Unseen' })).source,
        'model',
        'the read-only replica wrote nothing back',
      );
    } finally {
      await reader.stop();
    }
  });

  test('an unreachable database or a wrong URL stops serve at startup with one line and exit 2', async () => {
    const port = await freePort();
    const unreachable = await serveFailing([
      '--library',
      library,
      '--cache',
      `postgres://toolenv:secret@127.0.0.1:${port}/toolenv`,
    ]);
    assert.equal(unreachable.code, 2, unreachable.stderr);
    assert.match(
      unreachable.stderr,
      /^toolenv: postgres:\/\/toolenv:\*\*\*@127\.0\.0\.1:\d+\/toolenv is not a usable ToolEnv response cache: .*ECONNREFUSED[^\n]*\n$/,
    );
    const noDatabase = await serveFailing([
      '--library',
      library,
      '--cache',
      database.replace(/\/[^/]+$/, '/no_such_database'),
    ]);
    assert.equal(noDatabase.code, 2, noDatabase.stderr);
    assert.match(noDatabase.stderr, /^toolenv: [^\n]*database "no_such_database" does not exist\n$/);
  });
});
