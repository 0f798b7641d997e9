/**
 * The value prior: mined from a fixture library's documents (a real SQLite file), drawn from by the synthesizer, and
 * as the CLI writes and checks it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { LibraryStore } from '../../src/library/store.js';
import type { ApiRecord, Tool } from '../../src/library/tool.js';
import { packageRoot } from '../../src/paths.js';
import { minePrior, unreadPlaces } from '../../src/simulator/prior/mine.js';
import { contextKeys, PRIOR_FILE, readPrior } from '../../src/simulator/prior/prior.js';
import { addShape, type ShapeNode, shapeKey } from '../../src/simulator/prior/shapes.js';
import { synthesize } from '../../src/simulator/synth/index.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const run = promisify(execFile);
const BIN = join(packageRoot, 'bin', 'toolenv');

/** A document whose examples give accounts `account_…` ids, whole loyalty tallies and a currency, in three places. */
const bank = (id: string): ApiRecord => ({
  api_id: id,
  title: id,
  provider: id,
  category: 'financial',
  format: 'openapi',
  document: {
    openapi: '3.0.3',
    info: { title: id, version: '1' },
    paths: {
      '/accounts/{account_id}': {
        get: {
          parameters: [{ name: 'account_id', in: 'path', example: 'account_in71c4amph0vgo2qllky' }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  examples: {
                    one: { value: { account: { id: 'account_8c2kq0vw1x9z', tally: 1200, currency: 'USD' } } },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Account: {
          properties: {
            id: { type: 'string', example: 'account_x4pl2m7bb0de' },
            tally: { type: 'number', example: 98_000 },
            // A placeholder no latitude can be: the synthesizer keeps latitudes where they can be.
            latitude: { type: 'number', example: 4_000 },
            // A property called `example` is a field, not an example.
            example: { type: 'string', example: 'placeholder' },
          },
        },
      },
    },
  },
});

const account: Tool = {
  id: 'unseen__get_account',
  name: 'Get an account',
  description: 'Retrieve an account',
  category: 'financial',
  parameters: { type: 'object', properties: {} },
  response_schema: {
    type: 'object',
    required: ['account'],
    properties: {
      account: {
        type: 'object',
        required: ['id', 'tally', 'latitude'],
        properties: {
          id: { type: 'string' },
          tally: { type: 'number' },
          latitude: { type: 'number' },
          currency: { type: 'string' },
        },
      },
    },
  },
  examples: [],
  origin: { format: 'openapi', api_id: 'unseen.bank', method: 'get', path: '/x', operation_id: null, server: null },
};

test('the prior: every documented example counted under its field, a left-out API never read', () => {
  const dir = writeFixtureLibrary([], [bank('a.bank'), bank('b.bank'), bank('secret.bank')]);
  const store = LibraryStore.open(dir);
  try {
    const { prior, summary } = minePrior(store, new Set(['secret.bank']));
    assert.deepEqual(summary, { apis: 2, left_out: 1, left_out_operations: 0, values: 16, contexts: summary.contexts });
    assert.deepEqual(prior.left_out, ['secret.bank']);
    assert.ok(!Object.keys(prior.fields).some((context) => context.includes('secret.bank')));
    // The ids of the body example (under `account`) and of the schema (under `account`, the component's name).
    const id = prior.fields[contextKeys({ api: '', category: 'financial', parent: 'account', key: 'id' })[3]!]!;
    assert.deepEqual(id.classes, { vendor_id: 4 });
    assert.deepEqual(id.samples.vendor_id, ['account_8c2kq0vw1x9z', 'account_x4pl2m7bb0de']);
    const tally = prior.fields[contextKeys({ api: '', category: '', parent: '', key: 'tally' })[5]!]!;
    assert.deepEqual([tally.lo, tally.hi, tally.ints, tally.floats], [1200, 98_000, 4, undefined]);
    assert.deepEqual(
      prior.fields[contextKeys({ api: 'a.bank', category: '', parent: '', key: 'account_id' })[1]!]!.classes,
      { vendor_id: 1 },
    );
    assert.equal(prior.fields[contextKeys({ api: '', category: '', parent: '', key: 'example' })[5]!]!.n, 2);

    // An API the prior never saw: its ids take the vendors' prefix, its tallies stay whole, near the documented ones.
    for (let seed = 0; seed < 20; seed++) {
      const body = synthesize(account, {}, seed, prior).body as {
        account: { id: string; tally: number; latitude: number };
      };
      assert.match(body.account.id, /^account_[a-z0-9]{12}$/);
      const { tally, latitude } = body.account;
      assert.ok(Number.isInteger(tally) && tally >= 600 && tally <= 147_000, String(tally));
      assert.ok(Math.abs(latitude) <= 90, String(latitude));
    }
    // Without it, as before.
    assert.doesNotMatch((synthesize(account, {}, 1).body as { account: { id: string } }).account.id, /^account_/);
  } finally {
    store.close();
  }
});

test(
  'library prior writes prior.json leaving out a file of APIs; fidelity --examples refuses a prior that read a ' +
    'held-out API',
  async () => {
    const dir = writeFixtureLibrary([], [bank('a.bank'), bank('b.bank')]);
    const list = join(tempDir(), 'held-out.txt');
    writeFileSync(list, 'b.bank\n');
    const { stdout } = await run(BIN, ['library', 'prior', '--library', dir, '--leave-out', list, '--json']);
    const summary = JSON.parse(stdout.trim());
    assert.equal(summary.apis, 1);
    assert.equal(summary.left_out, 1);
    assert.ok(existsSync(join(dir, PRIOR_FILE)));
    assert.deepEqual(readPrior(join(dir, PRIOR_FILE))!.left_out, ['b.bank']);

    const fidelity = ['fidelity', '--examples', '--library', dir, '--json'];
    await run(BIN, [...fidelity, '--holdout', list]);
    writeFileSync(list, 'a.bank\n');
    for (const args of [
      [...fidelity, '--holdout', list],
      ['library', 'prior', '--library', dir, '--split-seed', '1'],
      ['library', 'prior', '--library', dir, '--leave-out', join(dir, 'missing.txt')],
    ]) {
      const failed = await run(BIN, args).then(
        () => assert.fail(`${args.join(' ')} was accepted`),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failed.code, 2);
      assert.equal(failed.stderr.trim().split('\n').length, 1);
    }
    // Without the prior, the same measurement runs.
    await run(BIN, [...fidelity, '--holdout', list, '--no-prior']);

    // A split's prior written apart: the library's own prior.json stays as it was.
    const own = readPrior(join(dir, PRIOR_FILE))!;
    const apart = join(tempDir(), 'held-out-prior.json');
    await run(BIN, ['library', 'prior', '--library', dir, '--leave-out', list, '--out', apart]);
    assert.deepEqual(readPrior(apart)!.left_out, ['a.bank']);
    assert.deepEqual(readPrior(join(dir, PRIOR_FILE)), own);
    await run(BIN, [...fidelity, '--holdout', list, '--prior', apart]);
    const failed = await run(BIN, [
      'library',
      'prior',
      '--library',
      dir,
      '--out',
      join(dir, 'no', 'such', 'p.json'),
    ]).then(
      () => assert.fail('an --out in no folder was accepted'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failed.code, 2);
    assert.match(failed.stderr, /^toolenv: --out: no folder/);
  },
);

test("an operation left out: its own examples and all its responses refer to go unread, its API's others are read", () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 'cards', version: '1' },
    paths: {
      '/accounts/{account_id}': {
        get: {
          parameters: [{ name: 'account_id', in: 'path', example: 'account_in71c4amph0vgo2qllky' }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
            },
          },
        },
      },
      '/cards': {
        get: {
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Card' },
                  example: { id: 'card_1MzVhq2eZvKYlo2C' },
                },
              },
              headers: { 'X-Rate-Limit': { schema: { type: 'integer' }, example: 100 } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Account: {
          properties: {
            id: { type: 'string', example: 'account_x4pl2m7bb0de' },
            owner: { $ref: '#/components/schemas/Owner' },
          },
        },
        Owner: { properties: { id: { type: 'string', example: 'owner_7Hd92kLq0a' } } },
        Card: { properties: { id: { type: 'string', example: 'card_9s6XKzkNRiz8i3' } } },
      },
    },
  };
  const api: ApiRecord = {
    api_id: 'cards.example',
    title: 'cards',
    provider: 'cards',
    category: 'financial',
    format: 'openapi',
    document,
  };
  const operation = (id: string, path: string): Tool => ({
    ...account,
    id,
    origin: { format: 'openapi', api_id: 'cards.example', method: 'get', path, operation_id: null, server: null },
  });
  const dir = writeFixtureLibrary(
    [operation('cards__account', '/accounts/{account_id}'), operation('cards__cards', '/cards')],
    [api],
  );
  const store = LibraryStore.open(dir);
  try {
    const { prior, summary } = minePrior(store, new Set(), new Set(['cards__account']));
    assert.equal(summary.left_out_operations, 1);
    assert.deepEqual(prior.left_out_operations, ['cards__account']);
    const samples = Object.values(prior.fields).flatMap((entry) => entry.samples.vendor_id ?? []);
    assert.deepEqual([...new Set(samples)].sort(), ['card_1MzVhq2eZvKYlo2C', 'card_9s6XKzkNRiz8i3']);
    // A body's own fields are held by its path's noun, as the synthesizer names their holder.
    const held = prior.fields[contextKeys({ api: 'cards.example', category: '', parent: 'cards', key: 'id' })[0]!];
    assert.deepEqual(held?.samples.vendor_id, ['card_1MzVhq2eZvKYlo2C']);
    // One documented body read: the shape of its noun's operations, none yet for the API.
    assert.deepEqual(Object.keys(prior.shapes ?? {}), [shapeKey('cards.example', 'cards')]);
    const cards = prior.shapes![shapeKey('cards.example', 'cards')]!;
    // The body once (its media type's example, not its schema's as well), not the header's.
    assert.deepEqual([cards.n, Object.keys(cards.keys!)], [1, ['id']]);
    // Nothing left out: all four places are read.
    const all = minePrior(store, new Set()).prior;
    const every = new Set(Object.values(all.fields).flatMap((entry) => entry.samples.vendor_id ?? []));
    assert.equal(every.size, 5);
    assert.equal(all.left_out_operations, undefined);
  } finally {
    store.close();
  }
});

test('unread places follow a path item by reference; shapes count one JSON body per operation, any key name', () => {
  const document = {
    openapi: '3.1.0',
    paths: { '/a': { $ref: '#/components/pathItems/A' } },
    components: {
      pathItems: {
        A: { get: { responses: { '200': { description: 'ok', $ref: '#/components/responses/Ok' } } } },
      },
      responses: { Ok: { description: 'ok' } },
    },
  };
  assert.deepEqual([...unreadPlaces(document, [{ method: 'get', path: '/a' }])].sort(), [
    '/components/pathItems/A/get',
    '/components/responses/Ok',
  ]);

  const node: ShapeNode = { n: 0, types: {} };
  addShape(node, JSON.parse('{"constructor": {"a": 1}, "__proto__": {"b": 2}, "toString": "x"}'));
  assert.deepEqual(Object.keys(node.keys!).sort(), ['__proto__', 'constructor', 'toString']);
  assert.equal(({} as { n?: number }).n, undefined, 'nothing written on Object.prototype');
});
