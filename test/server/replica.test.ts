/** `serve --replica N`: the ids a proxy routes by say which replica holds them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { startTestServer } from './helpers.js';

test('episode, group and member ids of a replica carry rN-, and they answer under it', async () => {
  const server = await startTestServer({ replica: 3 });
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const episode = (await (await post('/v1/episodes', {})).json()) as { id: string };
    assert.match(episode.id, /^r3-[0-9a-f-]{36}$/);
    const group = (await (await post('/v1/groups', { n: 2, task: { id: 't', query: 'q' } })).json()) as {
      id: string;
      episodes: { id: string }[];
    };
    assert.match(group.id, /^r3-g-/);
    assert.equal(group.episodes.length, 2);
    for (const member of group.episodes) {
      assert.match(member.id, /^r3-/);
      assert.equal((await fetch(`${server.url}/v1/episodes/${member.id}`)).status, 200);
    }
  } finally {
    await server.close();
  }
});

test('a --replica that is not a number from 0 to 9999 is one line and exit 2', async () => {
  const child = spawn(
    process.execPath,
    [join(packageRoot, 'bin/toolenv'), 'serve', '--port', '0', '--library', writeFixtureLibrary(), '--replica', 'east'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(stderr, /^toolenv: --replica [^\n]+\n$/);
});
