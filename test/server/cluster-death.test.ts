import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childPids } from '../../src/bench/processes.js';
import { packageRoot } from '../../src/paths.js';
import { environ, waitFor } from './process-helpers.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

const bin = join(packageRoot, 'bin/toolenv');

interface Connection {
  text: string;
  closed: boolean;
}

/** A connection that sends `bytes` and records what comes back and whether it closed. */
async function open(port: number, bytes: string): Promise<Connection> {
  const connection: Connection = { text: '', closed: false };
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (connection.text += chunk));
  socket.on('close', () => (connection.closed = true));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(bytes);
  return connection;
}

describe('serve --workers 2: a worker killed with requests in flight', () => {
  let child: ReturnType<typeof spawn>;
  let port: number;
  let stderr = '';

  before(async () => {
    child = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--workers',
        '2',
        '--port',
        '0',
        '--cache-mode',
        'off',
        '--library',
        writeFixtureLibrary(),
        '--json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    port = Number(new URL((JSON.parse(line) as { url: string }).url).port);
  });

  after(() => {
    child.kill('SIGKILL');
  });

  const worker = (index: string) =>
    childPids(child.pid!).find((pid) => environ(pid, 'TOOLENV_WORKER_INDEX') === index)!;

  it(
    'answers 503 for connections handed to a worker that died before taking them, ' + 'and closes those it held',
    async () => {
      // A stopped worker takes nothing: what the primary hands it waits, as for a worker stuck in a long request.
      const victim = worker('1');
      const held = await open(
        port,
        'POST /v1/tools/petstore_test__getPetById/call HTTP/1.1\r\nHost: localhost\r\n' +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"arg',
      );
      const other = await open(
        port,
        'POST /v1/tools/petstore_test__getPetById/call HTTP/1.1\r\nHost: localhost\r\n' +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"arg',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(victim, 'SIGSTOP');
      const waiting = await Promise.all(
        Array.from({ length: 4 }, () => open(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(victim, 'SIGKILL');
      // Before, the connections handed to the stopped worker were never answered nor closed.
      await waitFor(() => waiting.every((connection) => connection.text.includes('\r\n\r\n')), 10_000);
      const statuses = waiting.map((connection) => Number(/^HTTP\/1\.1 (\d{3})/.exec(connection.text)?.[1]));
      assert.ok(statuses.includes(503) && statuses.includes(200), JSON.stringify(statuses));
      for (const connection of waiting.filter((c) => c.text.startsWith('HTTP/1.1 503'))) {
        assert.match(connection.text, /retry-after: 1/i);
        assert.match(connection.text, /application\/problem\+json[\s\S]*"title":"Worker unavailable"/);
      }
      // A request the dead worker was reading: its connection closes with the worker, at once.
      await waitFor(() => held.closed || other.closed, 10_000);
      assert.ok(held.closed !== other.closed, "only the dead worker's connection closed");
      await waitFor(() => /worker 1 is back/.test(stderr), 30_000);
      const after = await open(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      await waitFor(() => after.closed, 10_000);
      assert.match(after.text, /^HTTP\/1\.1 200 /);
    },
  );
});
