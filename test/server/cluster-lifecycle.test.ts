import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { childPids } from '../../src/bench/processes.js';
import { packageRoot } from '../../src/paths.js';
import { environ, waitFor } from './process-helpers.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

const bin = join(packageRoot, 'bin/toolenv');

interface Started {
  pid: number;
  /** The first stdout line (the ready line), or undefined when the process ended first. */
  line: Promise<string | undefined>;
  exit: Promise<number | null>;
  stderr: () => string;
}

/**
 * `serve --workers 2` in a process group of its own, so that a test can signal the group as a terminal or systemd
 * would.
 */
function startCluster(args: string[]): Started {
  const child = spawn(process.execPath, [bin, 'serve', '--workers', '2', '--cache-mode', 'off', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const line = new Promise<string | undefined>((resolve) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    exit.then(() => resolve(undefined));
  });
  // Detached, it would outlive a failed test: whatever happens, the group goes when the test process does.
  process.once('exit', () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  return { pid: child.pid!, line, exit, stderr: () => stderr };
}

describe('serve --workers: the primary', () => {
  it('keeps serving on the same port after every worker died at once, ' +
    'and stops cleanly on SIGTERM to the whole group', {
    timeout: 60_000,
  }, async () => {
    const cluster = startCluster(['--port', '0', '--library', writeFixtureLibrary(), '--json']);
    const { url } = JSON.parse((await cluster.line)!) as { url: string };
    for (const pid of childPids(cluster.pid)) process.kill(pid, 'SIGKILL');
    await waitFor(() => (cluster.stderr().match(/is back/g) ?? []).length === 2);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    process.kill(-cluster.pid, 'SIGTERM');
    assert.equal(await cluster.exit, 0, cluster.stderr());
    assert.doesNotMatch(cluster.stderr(), /Error/);
  });

  it('says once why its workers cannot listen, and ends with their exit code', { timeout: 60_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const cluster = startCluster(['--port', String(port), '--library', writeFixtureLibrary()]);
      assert.equal(await cluster.line, undefined);
      assert.equal(await cluster.exit, 1);
      assert.equal(cluster.stderr(), `toolenv: 127.0.0.1:${port} is already in use; pick another --port\n`);
    } finally {
      taken.close();
    }
  });

  it('says once that its workers cannot open the cache, and ends with the usage exit code 2', {
    timeout: 60_000,
  }, async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'toolenv-cache-')), 'missing.db');
    const cluster = startCluster([
      '--port',
      '0',
      '--library',
      writeFixtureLibrary(),
      '--cache',
      missing,
      '--cache-mode',
      'read-only',
    ]);
    assert.equal(await cluster.line, undefined);
    assert.equal(await cluster.exit, 2);
    assert.equal(cluster.stderr(), `toolenv: no response cache at ${missing}\n`);
  });

  it('stops the workers it was starting when a signal comes first, leaving no socket directory', {
    timeout: 60_000,
  }, async () => {
    const cluster = startCluster(['--port', '0', '--library', writeFixtureLibrary()]);
    await waitFor(() => existsSync(`/proc/${cluster.pid}/task`) && childPids(cluster.pid).length === 2);
    const workers = childPids(cluster.pid);
    const sockets = environ(workers[0]!, 'TOOLENV_WORKER_SOCKETS')!;
    process.kill(-cluster.pid, 'SIGINT');
    assert.equal(await cluster.exit, 0, cluster.stderr());
    await waitFor(() => workers.every((pid) => !existsSync(`/proc/${pid}`)));
    assert.ok(!existsSync(sockets), `${sockets} is left behind`);
  });
});
