import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const bin = join(packageRoot, 'bin/toolenv');

/**
 * Starts `toolenv serve`, resolves with the first stdout line and the child, so the test can talk to it and stop it.
 */
function serve(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ line: string; exit: Promise<{ code: number | null; stderr: string }>; stop: () => void }> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolve({ line: stdout.slice(0, newline), exit, stop: () => child.kill('SIGTERM') });
    });
    exit.then(({ code }) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
  });
}

describe('toolenv serve', () => {
  it('prints {url, tools, startup_ms} with --json, serves, and shuts down cleanly on SIGTERM', async () => {
    const library = writeFixtureLibrary();
    const cache = join(tempDir(), 'cache.db');
    const server = await serve(['--port', '0', '--library', library, '--cache', cache, '--error-rate', '0', '--json']);
    const info = JSON.parse(server.line) as { url: string; tools: number; startup_ms: number };
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.tools, 5);
    assert.ok(Number.isFinite(info.startup_ms) && info.startup_ms > 0);
    assert.deepEqual(await (await fetch(`${info.url}/healthz`)).json(), { status: 'ok', tools: 5, seed: 0 });
    const call = await fetch(`${info.url}/apis/petstore.test/pets/7`);
    assert.equal(call.status, 200);
    assert.ok(['example', 'synth'].includes(call.headers.get('x-toolenv-source') ?? ''));
    server.stop();
    const { code } = await server.exit;
    assert.equal(code, 0);
  });

  it('takes the API key from TOOLENV_API_KEY', async () => {
    const server = await serve(['--port', '0', '--library', writeFixtureLibrary(), '--cache-mode', 'off'], {
      TOOLENV_API_KEY: 'k-123',
    });
    const url = /(http:\/\/\S+)/.exec(server.line)![1]!;
    try {
      assert.match(server.line, /^toolenv listening on http:\/\/127\.0\.0\.1:\d+ \(5 tools/);
      assert.equal((await fetch(`${url}/v1/tools`)).status, 401);
      assert.equal((await fetch(`${url}/v1/tools`, { headers: { authorization: 'Bearer k-123' } })).status, 200);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      server.stop();
      assert.equal((await server.exit).code, 0);
    }
  });

  it('exits 2 with one line for a missing --library or bad flags', () => {
    const missing = join(tempDir(), 'nothing-here');
    const cases: [string[], RegExp][] = [
      [['--library', missing, '--port', '0'], /no library at/],
      [['--port', 'http'], /--port must be an integer/],
      [['--error-rate', '2'], /--error-rate must be a number between 0 and 1/],
      [['--cache-mode', 'sometimes'], /--cache-mode must be one of/],
      [['--responder', 'oracle'], /unknown responder "oracle"/],
      [['--body-limit', '0'], /--body-limit/],
      [
        ['--upstream', 'record', '--cache-mode', 'off'],
        /--upstream record stores the real answers in the cache: it needs --cache-mode read-write, got off/,
      ],
      [['--upstream', 'replay', '--cache-mode', 'off'], /--upstream replay answers from the recordings in the cache/],
      [['--upstream', 'replay', '--upstream-log', 'diff.jsonl'], /--upstream replay forwards none/],
      [
        ['--upstream', 'passthrough', '--upstream-log', join(missing, 'diff.jsonl')],
        /cannot append to --upstream-log .*: ENOENT/,
      ],
      [['--upstream', 'passthrough', '--upstream-timeout', '0'], /--upstream-timeout must be a number/],
      [['--upstream-log', 'diff.jsonl'], /--upstream-log needs --upstream/],
    ];
    for (const [args, message] of cases) {
      const result = spawnSync(process.execPath, [bin, 'serve', ...args], {
        encoding: 'utf8',
        env: { ...process.env, TOOLENV_LIBRARY: missing },
      });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });

  it('has --help', () => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
    assert.equal(result.status, 0);
    for (const flag of [
      '--host',
      '--port',
      '--library',
      '--cache',
      '--cache-mode',
      '--seed',
      '--error-rate',
      '--responder',
      '--api-key',
      '--body-limit',
      '--json',
    ]) {
      assert.match(result.stdout, new RegExp(flag));
    }
  });
});
