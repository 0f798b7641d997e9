import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CacheError, ResponseCache, openCache, type ImportEntry } from '../../src/simulator/cache.js';
import { openResponseCache } from '../../src/simulator/cache-open.js';
import { canonicalJson } from '../../src/simulator/canonical.js';
import { tempDir } from '../fixtures/tools.js';

const cacheModule = new URL('../../src/simulator/cache.js', import.meta.url).href;

function cacheFile(): string {
  return join(tempDir('toolenv-cache-'), 'nested', 'responses.db');
}

test(
  'canonical JSON sorts keys recursively, drops whitespace, ' + 'keeps array order, and does not normalize Unicode',
  () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    assert.equal(canonicalJson(JSON.parse('{ "b" : 1 ,\n "a":2 }')), canonicalJson(JSON.parse('{"a":2,"b":1}')));
    assert.equal(canonicalJson({ n: -0 }), '{"n":0}');
    assert.equal(canonicalJson({ n: 1e21, m: 0.1 }), '{"m":0.1,"n":1e+21}');
    assert.notEqual(canonicalJson({ s: 'caf\u00e9' }), canonicalJson({ s: 'cafe\u0301' }));
    assert.equal(canonicalJson({ a: undefined, b: [undefined] }), '{"b":[null]}');
    assert.equal(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":1}')), '{"__proto__":{"x":1},"a":1}');
    assert.equal(canonicalJson({ é: 1, z: 2, Z: 3 }), '{"Z":3,"z":2,"é":1}');
  },
);

test('entries are keyed by tool and canonical arguments; the first answer stays', () => {
  const cache = ResponseCache.open(cacheFile());
  assert.equal(cache.get('t', { a: 1, b: [1, 2] }), undefined);
  assert.equal(cache.put('t', { b: [1, 2], a: 1 }, { status: 200, body: { ok: true }, source: 'synth' }), 'stored');
  assert.deepEqual(cache.get('t', JSON.parse('{ "a": 1, "b": [ 1, 2 ] }')), {
    status: 200,
    body: { ok: true },
    source: 'synth',
  });
  assert.equal(cache.get('t', { a: 1, b: [2, 1] }), undefined, 'array order matters');
  assert.equal(cache.get('u', { a: 1, b: [1, 2] }), undefined, 'the tool is part of the key');
  assert.equal(cache.put('t', { a: 1, b: [1, 2] }, { status: 500, body: 'other', source: 'model' }), 'kept');
  assert.equal(cache.get('t', { a: 1, b: [1, 2] })!.status, 200);
  cache.put('t', {}, { status: 204, body: undefined, source: 'synth' });
  assert.deepEqual(cache.get('t', {}), { status: 204, body: null, source: 'synth' });
  assert.equal(cache.count(), 2);
  cache.close();
});

test('hits and last-hit times are counted in batches and written by close', () => {
  const file = cacheFile();
  const cache = ResponseCache.open(file, { hitFlushMs: 60_000 });
  cache.put('t', { q: 1 }, { status: 200, body: 1, source: 'synth' });
  cache.put('t', { q: 2 }, { status: 200, body: 2, source: 'example' });
  for (let i = 0; i < 5; i++) cache.get('t', { q: 1 });
  cache.get('t', { q: 2 });
  cache.close();
  const reopened = ResponseCache.open(file, { mode: 'read-only' });
  const stats = reopened.stats();
  assert.equal(stats.entries, 2);
  assert.equal(stats.tools, 1);
  assert.equal(stats.hits, 6);
  assert.deepEqual(stats.by_source, { synth: 1, example: 1 });
  assert.deepEqual(stats.top_tools, [{ tool: 't', entries: 2, hits: 6 }]);
  assert.ok(stats.size_bytes > 0);
  const entries = [...reopened.entries()];
  assert.equal(entries[0]!.hits, 5);
  assert.ok(
    entries[0]!.last_hit_at !== null && Date.parse(entries[0]!.last_hit_at) >= Date.parse(entries[0]!.created_at),
  );
  reopened.close();
});

test(
  'hit counts that cannot be written while another connection ' + 'holds the write lock are kept for a later flush',
  async () => {
    const file = cacheFile();
    const cache = ResponseCache.open(file, { hitFlushMs: 5 });
    cache.put('t', { q: 1 }, { status: 200, body: 1, source: 'synth' });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 4; i++) assert.equal(cache.get('t', { q: 1 })!.body, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    other.exec('ROLLBACK');
    other.close();
    cache.close();
    const reopened = ResponseCache.open(file, { mode: 'read-only' });
    assert.equal(reopened.stats().hits, 4);
    reopened.close();
  },
);

test('past maxBytes the file takes no new entries; what it holds is still served', async () => {
  const cache = ResponseCache.open(cacheFile(), { maxBytes: 256 * 1024, hitFlushMs: 10 });
  const body = (i: number) => randomBytes(8 * 1024).toString('hex') + i;
  let stored = 0;
  while (cache.put('t', { i: stored }, { status: 200, body: body(stored), source: 'synth' }) === 'stored') {
    stored++;
    // The size is looked at with each hit flush, not on every write.
    if (stored % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok(stored < 100, 'the bound stops writes');
  }
  assert.ok(stored >= 10, `${stored} entries fit in 256 KiB`);
  assert.equal(cache.put('t', { i: 'more' }, { status: 200, body: 1, source: 'synth' }), 'full');
  assert.equal(cache.count(), stored);
  assert.ok(cache.get('t', { i: 0 }), 'hits go on');
  cache.close();
});

test(
  'read-only caches read but refuse writes; off opens ' + 'nothing; a missing or foreign file is a clear error',
  async () => {
    const file = cacheFile();
    const writer = ResponseCache.open(file);
    writer.put('t', {}, { status: 200, body: 'x', source: 'synth' });
    writer.close();
    const reader = openCache(file, 'read-only')!;
    assert.equal(reader.writable, false);
    assert.equal(reader.get('t', {})!.body, 'x');
    assert.throws(() => reader.put('t', { a: 1 }, { status: 200, body: 1, source: 'synth' }), CacheError);
    reader.close();
    assert.equal(openCache(file, 'off'), undefined);
    assert.throws(() => openCache(file, 'sometimes' as never), /cache mode must be one of read-write, read-only, off/);
    // A --cache value that is no postgres:// URL is a file, opened the same way.
    const named = await openResponseCache(file, 'read-only');
    assert.ok(named instanceof ResponseCache);
    await named.close();
    assert.equal(await openResponseCache(file, 'off'), undefined);
    await assert.rejects(
      openResponseCache(file, 'sometimes' as never),
      /cache mode must be one of read-write, read-only, off/,
    );
    assert.throws(() => ResponseCache.open(join(tempDir(), 'none.db'), { mode: 'read-only' }), /no response cache at/);
    const foreign = join(tempDir(), 'foreign.db');
    writeFileSync(foreign, 'this is not sqlite, just text long enough to look like a header to nobody');
    assert.throws(
      () => ResponseCache.open(foreign),
      (e: Error) => e instanceof CacheError && e.message.includes(foreign),
    );
    const other = join(tempDir(), 'other.db');
    new Database(other).exec('CREATE TABLE meta (key TEXT, value TEXT)');
    assert.throws(
      () => ResponseCache.open(other, { mode: 'read-only' }),
      /not a usable ToolEnv response cache: schema version none/,
    );
  },
);

test('an import runs in one transaction: a bad entry stores nothing and keeps what was there', () => {
  const cache = ResponseCache.open(cacheFile());
  cache.put('t', { a: 1 }, { status: 200, body: 'old', source: 'synth' });
  function* entries(): Generator<ImportEntry> {
    yield { tool: 't', arguments: { a: 2 }, status: 200, body: 'new', source: 'import' };
    yield { tool: 't', arguments: { a: 1 }, status: 200, body: 'replacement', source: 'import' };
    throw new CacheError('line 3: broken');
  }
  assert.throws(() => cache.import(entries(), { replace: true }), /line 3: broken/);
  assert.equal(cache.count(), 1);
  assert.equal(cache.get('t', { a: 1 })!.body, 'old');

  const good: ImportEntry[] = [
    { tool: 't', arguments: { a: 2 }, status: 201, body: 'new', source: 'import', hits: 3 },
    { tool: 't', arguments: { a: 1 }, status: 200, body: 'replacement', source: 'import' },
  ];
  assert.deepEqual(cache.import(good), { inserted: 1, replaced: 0, kept: 1 });
  assert.equal(cache.get('t', { a: 1 })!.body, 'old');
  assert.deepEqual(cache.import(good, { replace: true }), { inserted: 0, replaced: 2, kept: 0 });
  assert.equal(cache.get('t', { a: 1 })!.body, 'replacement');
  cache.close();
});

/**
 * A child process that opens the cache and writes entries `from`..`to` (forever when `to` is absent), printing each
 * acknowledged key.
 */
function writer(file: string, prefix: string, from: number, to?: number) {
  const script =
    `
    import { ResponseCache } from ${JSON.stringify(cacheModule)};
    const cache = ResponseCache.open(${JSON.stringify(file)});
    const body = { items: Array.from({ length: 20 }, (_, i) => ({ i, text: 'x'.repeat(40) })) };
    for (let i = ${from}; ${to === undefined ? 'true' : `i < ${to}`}; i++) {
      cache.put('tool_' + (i % 7), { key: ${JSON.stringify(prefix)} + i }, ` +
    `{ status: 200, body: { n: i, ...body }, source: 'synth' });
      if (i % 3 === 0) cache.get('tool_' + (i % 7), { key: ${JSON.stringify(prefix)} + i });
      process.stdout.write(i + '\\n');
    }
    cache.close();
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Reads the keys a writer prints as it acknowledges them, and kills it with SIGKILL once `n` have come. */
async function killAfter(
  child: ReturnType<typeof spawn>,
  n: number,
): Promise<{ acknowledged: number[]; code: number | null; signal: NodeJS.Signals | null }> {
  const acknowledged: number[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) acknowledged.push(Number(line));
    if (acknowledged.length >= n && child.exitCode === null && !child.killed) child.kill('SIGKILL');
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { acknowledged, code, signal };
}

test('entries acknowledged before a kill -9 are all there, and the file opens', async () => {
  const file = cacheFile();
  const child = writer(file, 'k', 0);
  const { acknowledged, code, signal } = await killAfter(child, 3000);
  assert.equal(code, null);
  assert.equal(signal, 'SIGKILL');
  assert.ok(acknowledged.length >= 3000);

  const cache = ResponseCache.open(file);
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  db.close();
  for (const i of acknowledged) {
    const hit = cache.get(`tool_${i % 7}`, { key: `k${i}` });
    assert.ok(hit, `acknowledged entry ${i} is missing`);
    assert.equal((hit.body as { n: number }).n, i);
  }
  assert.ok(cache.count() >= acknowledged.length);
  cache.close();
});

test(
  'putBatched: the write-backs of one event-loop turn commit ' + 'together, each promise once its entry is in',
  async () => {
    const file = cacheFile();
    const cache = ResponseCache.open(file);
    const other = ResponseCache.open(file, { mode: 'read-only' });
    const puts = Array.from({ length: 50 }, (_, i) =>
      cache.putBatched('t', { i }, { status: 200, body: { i }, source: 'synth' }),
    );
    assert.equal(other.count(), 0, 'nothing is written before the turn ends');
    assert.deepEqual(new Set(await Promise.all(puts)), new Set(['stored']));
    assert.equal(other.count(), 50);
    assert.equal(await cache.putBatched('t', { i: 1 }, { status: 200, body: 'second', source: 'synth' }), 'kept');
    assert.deepEqual(other.get('t', { i: 1 })!.body, { i: 1 });

    // Queued at close: committed, not lost.
    const last = cache.putBatched('t', { i: 'last' }, { status: 200, body: 'x', source: 'synth' });
    cache.close();
    assert.equal(await last, 'stored');
    assert.equal(other.get('t', { i: 'last' })!.body, 'x');
    other.close();
  },
);

test('entries acknowledged by putBatched before a kill -9 are all there', async () => {
  const file = cacheFile();
  const script =
    `
    import { ResponseCache } from ${JSON.stringify(cacheModule)};
    const cache = ResponseCache.open(${JSON.stringify(file)});
    for (let i = 0; ; i += 10) {
      const batch = Array.from({ length: 10 }, (_, k) => cache.putBatched('t', { key: i + k }, ` +
    `{ status: 200, body: { n: i + k }, source: 'synth' })` +
    `.then(() => process.stdout.write((i + k) + '\\n')));
      await Promise.all(batch);
    }
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { acknowledged, signal } = await killAfter(child, 2000);
  assert.equal(signal, 'SIGKILL');
  const cache = ResponseCache.open(file, { mode: 'read-only' });
  for (const i of acknowledged) assert.ok(cache.get('t', { key: i }), `acknowledged entry ${i} is missing`);
  cache.close();
});

test('two processes writing the same file lose nothing', async () => {
  const file = cacheFile();
  ResponseCache.open(file).close();
  const children = [writer(file, 'a', 0, 600), writer(file, 'b', 0, 600), writer(file, 'a', 400, 800)];
  const codes = await Promise.all(
    children.map(async (child) => {
      child.stdout!.resume();
      const [code] = await once(child, 'exit');
      return code as number;
    }),
  );
  assert.deepEqual(codes, [0, 0, 0]);
  const cache = ResponseCache.open(file, { mode: 'read-only' });
  assert.equal(cache.count(), 800 + 600, 'keys a0..a799 and b0..b599, the overlap a400..a599 stored once');
  cache.close();
});
