/** The PostgreSQL response cache on a real server (test/fixtures/postgres.ts): two instances stand for two replicas. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresCache } from '../../src/simulator/cache-postgres.js';
import { openResponseCache } from '../../src/simulator/cache-open.js';
import { CacheError } from '../../src/simulator/cache-error.js';
import type { ImportEntry, Produced, StoredHit } from '../../src/simulator/cache-types.js';
import { freePort } from '../../src/server/free-port.js';
import { postgresSkip, startPostgres, type TestPostgres } from '../fixtures/postgres.js';
import { LibraryStore } from '../../src/library/store.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

// What opening an empty database read-only says, and an unreachable one (the password masked).
const NO_CACHE_YET =
  /no ToolEnv response cache in postgres:\/\/toolenv@127\.0\.0\.1:\d+\/toolenv_test_\w+ \(open it read-write once/;
const UNREACHABLE =
  /postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/db is not a usable ToolEnv response cache: .*ECONNREFUSED/;

describe('PostgreSQL response cache', { skip: postgresSkip }, () => {
  let server: TestPostgres;
  const opened: PostgresCache[] = [];
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await Promise.all(opened.map((cache) => cache.close()));
    await server.stop();
  });

  async function open(url: string, options: Parameters<typeof PostgresCache.open>[1] = {}): Promise<PostgresCache> {
    const cache = await PostgresCache.open(url, { hitFlushMs: 60_000, ...options });
    opened.push(cache);
    return cache;
  }

  const answer = (body: unknown, source = 'model'): Produced => ({
    response: { status: 200, body, source },
    cacheable: true,
  });

  test(
    'entries are keyed by tool and canonical arguments, the first answer stays, and repeated hits come from ' +
      'memory',
    async () => {
      const cache = await open(await server.database());
      assert.equal(await cache.getText('t', { a: 1, b: [1, 2] }), undefined);
      assert.equal(
        await cache.put('t', { b: [1, 2], a: 1 }, { status: 200, body: { ok: true }, source: 'synth' }),
        'stored',
      );
      assert.deepEqual(await cache.getText('t', JSON.parse('{ "a": 1, "b": [ 1, 2 ] }')), {
        status: 200,
        text: '{"ok":true}',
        source: 'synth',
      });
      assert.equal(await cache.getText('t', { a: 1, b: [2, 1] }), undefined, 'array order matters');
      assert.equal(await cache.getText('u', { a: 1, b: [1, 2] }), undefined, 'the tool is part of the key');
      assert.equal(await cache.put('t', { a: 1, b: [1, 2] }, { status: 500, body: 'other', source: 'model' }), 'kept');
      const memoized = cache.getText('t', { a: 1, b: [1, 2] });
      assert.ok(!(memoized instanceof Promise), 'a row read once is answered without a round trip');
      assert.equal((memoized as StoredHit).status, 200);
      // An argument far past PostgreSQL's index-row limit (about 2.7 kB) is keyed by its hash.
      const long = { text: 'x'.repeat(100_000) };
      assert.equal(await cache.put('t', long, { status: 200, body: 1, source: 'synth' }), 'stored');
      assert.equal((await cache.getText('t', long))?.text, '1');
      assert.equal(await cache.count(), 2);
    },
  );

  test(
    'an entry over the size limit is not stored; hit counts are ' + 'written in batches and exported with the entries',
    async () => {
      const url = await server.database();
      const cache = await open(url, { maxEntryBytes: 1000 });
      assert.equal(
        await cache.put('t', { q: 'small' }, { status: 200, body: 'x'.repeat(100), source: 'synth' }),
        'stored',
      );
      assert.equal(
        await cache.put('t', { q: 'big' }, { status: 200, body: 'x'.repeat(1000), source: 'synth' }),
        'too_large',
      );
      assert.equal(
        await cache.put('t', { q: 'y'.repeat(1000) }, { status: 200, body: 1, source: 'synth' }),
        'too_large',
        'the arguments count too',
      );
      for (let i = 0; i < 4; i++) await cache.getText('t', { q: 'small' });
      const stats = await cache.stats();
      assert.equal(stats.entries, 1);
      assert.equal(stats.hits, 4);
      assert.deepEqual(stats.by_source, { synth: 1 });
      assert.deepEqual(stats.top_tools, [{ tool: 't', entries: 1, hits: 4 }]);
      assert.ok(stats.size_bytes > 0);
      assert.equal(stats.file, url);
      const entries = [];
      for await (const entry of cache.entries()) entries.push(entry);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.hits, 4);
      assert.ok(
        entries[0]!.last_hit_at !== null && Date.parse(entries[0]!.last_hit_at) >= Date.parse(entries[0]!.created_at),
      );
    },
  );

  test('past maxBytes the table takes no new entries, from a write-back or a settled miss; hits go on', async () => {
    const cache = await open(await server.database(), { maxBytes: 512 * 1024, hitFlushMs: 10 });
    // Random text: PostgreSQL compresses long values, and repeated characters would take no room.
    const body = () => randomBytes(8 * 1024).toString('hex');
    let stored = 0;
    while ((await cache.put('t', { i: stored }, { status: 200, body: body(), source: 'synth' })) === 'stored') {
      stored++;
      if (stored % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 30));
      assert.ok(stored < 200, 'the bound stops writes');
    }
    assert.ok(stored >= 10, `${stored} entries fit in 512 KiB`);
    assert.equal(await cache.put('t', { i: 'more' }, { status: 200, body: 1, source: 'synth' }), 'full');
    const settled = await cache.settle('t', { i: 'miss' }, async () => answer('fresh'));
    assert.deepEqual(settled.kind === 'own' && settled.outcome, 'full');
    assert.equal(await cache.count(), stored);
    assert.ok(await cache.getText('t', { i: 0 }), 'hits go on');
  });

  test(
    'two replicas missing the same call at once produce one ' + 'answer; the other waits and serves the stored row',
    async () => {
      const url = await server.database();
      const [a, b] = [await open(url), await open(url)];
      let produced = 0;
      const slow = (body: unknown) => async () => {
        produced++;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return answer(body);
      };
      const started = Date.now();
      const [first, second] = await Promise.all([
        a.settle('t', { q: 1 }, slow({ by: 'a' })),
        b.settle('t', { q: 1 }, slow({ by: 'b' })),
      ]);
      assert.equal(produced, 1, 'one responder call between the two');
      const kinds = [first.kind, second.kind].sort();
      assert.deepEqual(kinds, ['own', 'stored']);
      const own = (first.kind === 'own' ? first : second) as Extract<typeof first, { kind: 'own' }>;
      const stored = (first.kind === 'stored' ? first : second) as Extract<typeof first, { kind: 'stored' }>;
      assert.equal(own.outcome, 'stored');
      assert.equal(stored.hit.text, JSON.stringify(own.produced.response.body));
      assert.ok(Date.now() - started < 2000, 'the waiter was told, not left to its timeout');
      // Settled, the call is a plain hit on both.
      assert.equal((await b.getText('t', { q: 1 }))?.text, stored.hit.text);
      assert.equal((await a.getText('t', { q: 1 }))?.text, stored.hit.text);
    },
  );

  test('an answer that may not be cached frees the claim at once: the waiter answers for itself', async () => {
    const url = await server.database();
    const [a, b] = [await open(url), await open(url)];
    const failing = async (): Promise<Produced> => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { response: { status: 500, body: { title: 'Responder failed' }, source: 'rule' }, cacheable: false };
    };
    const claimed = a.settle('t', { q: 2 }, failing);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waited = await b.settle('t', { q: 2 }, async () => answer({ by: 'b' }));
    assert.equal((await claimed).kind, 'own');
    assert.equal(waited.kind, 'own');
    assert.equal(await a.count(), 1);
    assert.equal((await a.getText('t', { q: 2 }))?.text, '{"by":"b"}');
  });

  test('a claim whose owner died runs out with its lease, and the waiter answers', async () => {
    const url = await server.database();
    const cache = await open(url);
    // What a replica killed while answering leaves behind: a claim nobody renews.
    const key = createHash('sha256').update('t').update('\u0000').update('{"q":3}').digest();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "INSERT INTO toolenv_pending (key, owner, expires_at) VALUES ($1, 'gone', now() + interval '400 milliseconds')",
      [key],
    );
    await client.end();
    const started = Date.now();
    const settled = await cache.settle('t', { q: 3 }, async () => answer('late'));
    assert.equal(settled.kind, 'own');
    assert.ok(Date.now() - started >= 300, 'it waited for the lease');
    assert.equal((await cache.getText('t', { q: 3 }))?.text, '"late"');
  });

  test(
    'imports run in one transaction, count what they replaced, and an import that replaces clears every ' +
      'replica’s memory',
    async () => {
      const url = await server.database();
      const [a, b] = [await open(url), await open(url)];
      await a.put('t', { q: 1 }, { status: 200, body: 'old', source: 'synth' });
      assert.equal((await b.getText('t', { q: 1 }))?.text, '"old"');
      const entries: ImportEntry[] = [
        { tool: 't', arguments: { q: 1 }, status: 200, body: 'new', source: 'import' },
        {
          tool: 't',
          arguments: { q: 2 },
          status: 200,
          body: 'two',
          source: 'import',
          created_at: '2026-01-01T00:00:00Z',
          hits: 3,
          last_hit_at: null,
        },
        { tool: 't', arguments: { q: 2 }, status: 200, body: 'two again', source: 'import' },
      ];
      assert.deepEqual(await a.import(entries), { inserted: 1, replaced: 0, kept: 2 });
      assert.deepEqual(await a.import(entries, { replace: true }), { inserted: 0, replaced: 3, kept: 0 });
      const bad = function* (): Generator<ImportEntry> {
        yield { tool: 't', arguments: { q: 9 }, status: 200, body: 9, source: 'import' };
        throw new CacheError('line 2: broken');
      };
      await assert.rejects(a.import(bad()), /line 2: broken/);
      assert.equal(await a.count(), 2, 'the bad import stored nothing');
      await waitUntil(async () => (await b.getText('t', { q: 1 }))?.text === '"new"');
      const exported = [];
      for await (const entry of a.entries()) exported.push(entry);
      assert.deepEqual(
        exported.map((e) => [e.arguments, e.body, e.hits]),
        [
          [{ q: 1 }, 'new', 0],
          [{ q: 2 }, 'two again', 3],
        ],
      );
    },
  );

  test(
    'while the database is down calls are still answered; once it is back the replicas share answers and hear ' +
      'imports again',
    async (t) => {
      if (process.env.TOOLENV_TEST_POSTGRES_URL) return t.skip('needs a server of its own to restart');
      const own = await startPostgres();
      const url = await own.database();
      const [a, b] = [await PostgresCache.open(url), await PostgresCache.open(url)];
      const store = LibraryStore.open(writeFixtureLibrary());
      try {
        const sim = createSimulator({ store, cache: a, responders: [synthResponder], errorRate: 0 });
        const first = await sim.call('weather_forecast', { city: 'Oslo' });
        assert.equal(first.source, 'synth');
        const bringBack = await own.takeDown!();
        assert.equal(
          (await sim.call('weather_forecast', { city: 'Oslo' })).source,
          'cache',
          'a memoized row needs no database',
        );
        const missed = await sim.call('weather_forecast', { city: 'Bergen' });
        assert.equal(missed.status, 200);
        assert.equal(missed.source, 'synth', 'a miss is still answered');
        assert.ok(sim.metrics.cacheReadErrors >= 1);
        assert.ok(sim.metrics.cacheWriteErrors >= 1);
        await bringBack();
        assert.equal((await sim.call('weather_forecast', { city: 'Bergen' })).source, 'synth');
        assert.equal(
          (await b.getText('weather_forecast', { city: 'Bergen' }))?.text,
          JSON.stringify(missed.body),
          'stored once the database is back',
        );
        // The listening connection came back: an import that replaces rows reaches this replica's memory.
        await b.import(
          [{ tool: 'weather_forecast', arguments: { city: 'Oslo' }, status: 200, body: 'replaced', source: 'import' }],
          { replace: true },
        );
        await waitUntil(
          async () => (await a.getText('weather_forecast', { city: 'Oslo' }))?.text === '"replaced"',
          10_000,
        );
      } finally {
        store.close();
        await a.close();
        await b.close();
        await own.stop();
      }
    },
  );

  test(
    'read-only refuses writes and an empty database; ' +
      'a bad or unreachable URL is a CacheError without the password',
    async () => {
      const empty = await server.database();
      await assert.rejects(openResponseCache(empty, 'read-only'), NO_CACHE_YET);
      const url = await server.database();
      const writer = await open(url);
      await writer.put('t', {}, { status: 200, body: 'x', source: 'synth' });
      const reader = (await openResponseCache(url, 'read-only')) as PostgresCache;
      opened.push(reader);
      assert.equal(reader.writable, false);
      assert.equal((await reader.getText('t', {}))?.text, '"x"');
      await assert.rejects(
        async () => reader.put('t', { a: 1 }, { status: 200, body: 1, source: 'synth' }),
        CacheError,
      );
      const port = await freePort();
      await assert.rejects(
        PostgresCache.open(`postgres://someone:s3cret@127.0.0.1:${port}/db`, { connectTimeoutMs: 2000 }),
        (error: Error) =>
          error instanceof CacheError && UNREACHABLE.test(error.message) && !error.message.includes('s3cret'),
      );
    },
  );
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
