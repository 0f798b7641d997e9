/** `toolenv fidelity --examples`: answers against documented examples, on a hand-made case whose figures are known. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { compareToExample, sameMagnitude } from '../../src/fidelity/compare-example.js';
import { runExamplesFidelity, withheldExpander } from '../../src/fidelity/examples-run.js';
import { proportion } from '../../src/fidelity/interval.js';
import { declaredKeys, documentPrefixes, prefixesIn, requestText, siteOf } from '../../src/fidelity/reach.js';
import { CUT_KEYWORD } from '../../src/library/openapi/schema.js';
import { heldOutIds } from '../../src/fidelity/split.js';
import { LibraryStore } from '../../src/library/store.js';
import type { ApiRecord, JsonSchema, Tool } from '../../src/library/tool.js';
import { valueClass } from '../../src/library/value-class.js';
import { packageRoot } from '../../src/paths.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import type { Arguments, Responder } from '../../src/simulator/types.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const run = promisify(execFile);
const BIN = join(packageRoot, 'bin', 'toolenv');

const example = {
  id: 'cus_9s6XKzkNRiz8i3',
  amount: 1500,
  created: 1_600_000_000,
  email: 'jenny@example.com',
  tags: ['gold', 'early'],
  address: { country: 'US' },
};
/** What the fake synthesizer answers: two classes right, two wrong, a list and a nested key missing. */
const answer = {
  id: 'cus_Zq81LmP0aa',
  amount: 12.5,
  created: '2020-09-13T12:26:40Z',
  email: 'someone@example.org',
  address: {},
};

const document = {
  openapi: '3.0.3',
  info: { title: 'Payments', version: '1' },
  paths: {
    '/customers': {
      post: {
        requestBody: {
          content: { 'application/json': { example: { email: 'jenny@example.com' } } },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { id: { type: 'string', description: 'Begins `cus_`.' } } },
              },
            },
          },
        },
      },
    },
  },
};

const api = (id: string): ApiRecord => ({
  api_id: id,
  title: id,
  provider: id,
  category: 'payments',
  format: 'openapi',
  document,
});

const tool = (id: string, apiId: string): Tool => ({
  id,
  name: 'Create a customer',
  description: 'Creates a customer',
  category: 'payments',
  parameters: {
    type: 'object',
    required: ['email'],
    properties: { email: { type: 'string' }, plan: { type: 'string', examples: ['gold'] } },
  },
  bindings: { email: { in: 'body', name: 'email' }, plan: { in: 'query', name: 'plan' } },
  response_schema: {
    type: 'object',
    properties: { id: { type: 'string', examples: ['cus_9s6XKzkNRiz8i3'] }, amount: { type: 'number' } },
  },
  examples: [{ status: 200, body: example }],
  origin: { format: 'openapi', api_id: apiId, method: 'post', path: '/customers', operation_id: null, server: null },
});

test('value classes: the classifier on one value of each class it tells apart', () => {
  const cases: [unknown, string, string][] = [
    [null, '', 'null'],
    [true, '', 'boolean'],
    [3, '', 'integer'],
    [2.5, '', 'float'],
    [1_600_000_000, 'created', 'unix_timestamp'],
    [1_600_000_000, 'count', 'integer'],
    ['1600000000000', 'updated_at', 'unix_timestamp'],
    ['', '', 'empty'],
    ['0b6f1e5c-8f0a-4a50-9d47-3c0e2f1b9a77', '', 'uuid'],
    ['a@b.io', '', 'email'],
    ['https://api.example.com/v1', '', 'url'],
    ['/v1/users/42', '', 'path'],
    ['192.168.0.1', '', 'ip'],
    ['2024-05-01T10:00:00Z', '', 'datetime'],
    ['2024-05-01', '', 'date'],
    ['10:30:00', '', 'time'],
    ['12345', '', 'numeric_string'],
    ['+1 415-555-2671', '', 'phone'],
    ['EUR', '', 'currency_code'],
    ['DE', '', 'country_code'],
    ['5f2b9c0e8d1a4b7c9e3f', '', 'hash'],
    ['account_in71c4amph0vgo2qllky', '', 'vendor_id'],
    ['Zx81kLmP0aQ9rT', '', 'opaque_id'],
    ['SUCCEEDED', '', 'constant'],
    ['v2', '', 'alphanumeric'],
    ['in_progress', '', 'word'],
    ['Jenny Rosen', '', 'phrase'],
    ['The customer asked for a refund.', '', 'sentence'],
    ['a+b=c', '', 'text'],
  ];
  for (const [value, key, expected] of cases) assert.equal(valueClass(value, key), expected, JSON.stringify(value));
  assert.equal(valueClass({}), undefined);
});

test('the comparison: keys recursively, leaves by class, list items by index', () => {
  const { leaves, keys } = compareToExample(example, answer);
  assert.equal(keys.length, 7);
  assert.deepEqual(
    keys.filter((k) => !k.present).map((k) => k.path),
    ['/tags', '/address/country'],
  );
  assert.deepEqual(
    leaves.map((l) => [l.path, l.expectedClass, l.gotClass ?? 'absent']),
    [
      ['/id', 'vendor_id', 'vendor_id'],
      ['/amount', 'integer', 'float'],
      ['/created', 'unix_timestamp', 'datetime'],
      ['/email', 'email', 'email'],
      ['/tags/0', 'word', 'absent'],
      ['/tags/1', 'word', 'absent'],
      ['/address/country', 'country_code', 'absent'],
    ],
  );
  // A shorter list repeats its last item.
  const listed = compareToExample({ items: [{ n: 1 }, { n: 2 }] }, { items: [{ n: 'x' }] });
  assert.deepEqual(
    listed.leaves.map((l) => l.gotClass),
    ['word', 'word'],
  );
  assert.ok(sameMagnitude(120, 999) && !sameMagnitude(12.5, 1500) && !sameMagnitude(-3, 3) && sameMagnitude(0, 0));
  assert.deepEqual(proportion(0, 0), { n: 0, hits: 0, rate: null, low: null, high: null });
  // Wilson's interval for 2 of 4: 15.0% to 85.0%.
  assert.deepEqual(proportion(2, 4), { n: 4, hits: 2, rate: 0.5, low: 0.15, high: 0.85 });
});

test(
  'fidelity --examples: the figures of a hand-made answer, examples withheld from the answering pipeline, one ' +
    'side of the split',
  async () => {
    const dir = writeFixtureLibrary(
      [tool('pay_a__create', 'pay.a'), tool('pay_b__create', 'pay.b')],
      [api('pay.a'), api('pay.b')],
    );
    const store = LibraryStore.open(dir);
    const seen: { tool: Tool; args: Arguments }[] = [];
    const fake: Responder = {
      name: 'synth',
      respond: (answering, args) => {
        seen.push({ tool: answering, args });
        return Promise.resolve({ status: 200, body: structuredClone(answer) });
      },
    };
    try {
      const report = await runExamplesFidelity({
        store,
        responders: [examplesResponder, fake],
        heldOut: new Set(['pay.a']),
        side: 'held-out',
        sample: 10,
        seed: 3,
        expand: withheldExpander((id) => store.apiDocument(id)),
      });
      // The examples responder never answered (dynamic), and the synthesizer saw no example of the operation.
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.tool.id, 'pay_a__create');
      assert.deepEqual(seen[0]!.tool.examples, []);
      assert.doesNotMatch(JSON.stringify(seen[0]!.tool.response_schema), /cus_9s6/);
      // The request carries the documented body example and parameter example.
      assert.deepEqual(seen[0]!.args, { email: 'jenny@example.com', plan: 'gold' });
      assert.deepEqual(report.sample, {
        candidates: 1,
        operations: 1,
        apis: 1,
        leaves: 7,
        keys: 7,
        documented_requests: 1,
        documented_values: 2,
        no_valid_request: 0,
        unanswered: 0,
      });
      assert.deepEqual(report.split, { by: 'apis', apis: 2, held_out: 1 });
      assert.deepEqual([report.value_class.hits, report.value_class.n], [2, 4]);
      assert.deepEqual([report.value_class_all_leaves.hits, report.value_class_all_leaves.n], [2, 7]);
      assert.deepEqual([report.key_coverage.hits, report.key_coverage.n], [5, 7]);
      assert.deepEqual([report.id_prefix.hits, report.id_prefix.n], [1, 1]);
      assert.deepEqual([report.magnitude.hits, report.magnitude.n], [0, 1]);
      assert.deepEqual([report.integer_float.hits, report.integer_float.n], [0, 1]);
      assert.deepEqual(report.per_operation, { value_class: 0.5, key_coverage: 0.7143 });
      assert.deepEqual(report.by_class.integer.answered_as, [{ class: 'float', leaves: 1 }]);
      assert.equal(report.by_class.word.present.rate, 0);
      assert.equal(report.worst[0]!.tool, 'pay_a__create');
      // Within reach: the schema declares `id` and `amount` of the 7 keys; `cus_` is in the document's description.
      assert.deepEqual([report.reach.keys_declared.hits, report.reach.keys_declared.n], [2, 7]);
      assert.deepEqual([report.reach.id_prefix_findable.hits, report.reach.id_prefix_findable.n], [1, 1]);
      assert.deepEqual([report.reach.prior_mode.covered.hits, report.reach.prior_mode.covered.n], [0, 4]);

      const kept = await runExamplesFidelity({
        store,
        responders: [fake],
        heldOut: new Set(['pay.a']),
        side: 'kept',
        sample: 10,
        seed: 3,
        expand: withheldExpander((id) => store.apiDocument(id)),
      });
      assert.equal(seen.at(-1)!.tool.id, 'pay_b__create');
      assert.equal(kept.sample.operations, 1);
    } finally {
      store.close();
    }
  },
);

test(
  'the split is seeded by API id alone, and the command writes it, measures with the real synthesizer and ' +
    'refuses bad flags',
  async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `api${i}.example.com`);
    const held = heldOutIds(ids, 7, 0.2);
    assert.ok(held.size > 150 && held.size < 250);
    assert.deepEqual(heldOutIds(ids.slice(0, 500), 7, 0.2), new Set([...held].filter((id) => ids.indexOf(id) < 500)));

    const dir = writeFixtureLibrary(
      [tool('pay_a__create', 'pay.a'), tool('pay_b__create', 'pay.b')],
      [api('pay.a'), api('pay.b')],
    );
    const list = join(tempDir(), 'held-out.txt');
    const args = ['fidelity', '--examples', '--library', dir, '--split-seed', '1', '--holdout-share', '0.5'];
    const { stdout } = await run(BIN, [...args, '--write-holdout', list, '--json']);
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
    const written = readFileSync(list, 'utf8').trim().split('\n').filter(Boolean);
    assert.deepEqual(written, [...heldOutIds(['pay.a', 'pay.b'], 1, 0.5)].sort());
    assert.equal(report.sample.operations, written.length);
    assert.deepEqual(report.responders, ['example', 'synth']);
    assert.equal(report.prior, null, 'the fixture library has no prior.json');
    // The synthesizer's answer is scored whatever it is: every leaf either agrees or not.
    if (written.length > 0) assert.equal(report.value_class_all_leaves.n, 7);

    const same = await run(BIN, ['fidelity', '--examples', '--library', dir, '--holdout', list, '--json']);
    assert.deepEqual({ ...JSON.parse(same.stdout.trim().split('\n').at(-1)!), wall_s: 0 }, { ...report, wall_s: 0 });

    for (const bad of [
      ['--side', 'both'],
      ['--holdout-share', '2'],
      ['--holdout', join(dir, 'missing.txt')],
      ['--split-by', 'tools'],
    ]) {
      const failed = await run(BIN, [...args, ...bad]).then(
        () => assert.fail(`${bad.join(' ')} was accepted`),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failed.code, 2);
      assert.equal(failed.stderr.trim().split('\n').length, 1);
    }
  },
);

test('operations held out: a prior that left out their examples, their APIs read; one that read them is refused', async () => {
  const dir = writeFixtureLibrary(
    [tool('pay_a__create', 'pay.a'), tool('pay_b__create', 'pay.b')],
    [api('pay.a'), api('pay.b')],
  );
  const list = join(tempDir(), 'operations.txt');
  writeFileSync(list, 'pay_a__create\n');
  const mined = await run(BIN, ['library', 'prior', '--library', dir, '--split-by', 'operations', '--leave-out', list]);
  assert.match(mined.stdout, /2 APIs \(0 left out, and 1 operations\)/);
  const args = ['fidelity', '--examples', '--library', dir, '--split-by', 'operations', '--json'];
  const { stdout } = await run(BIN, [...args, '--holdout', list]);
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
  assert.deepEqual(report.split, { by: 'operations', apis: 2, held_out: 1 });
  assert.deepEqual([report.sample.operations, report.worst[0].tool], [1, 'pay_a__create']);
  assert.deepEqual(report.prior.left_out_operations, 1);
  // The other operation's examples were read: measuring it is refused.
  writeFileSync(list, 'pay_b__create\n');
  const failed = await run(BIN, [...args, '--holdout', list]).then(
    () => assert.fail('a prior that read a held-out operation was accepted'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(failed.code, 2);
  assert.match(failed.stderr, /read the examples of 1 held-out operations \(pay_b__create/);
});

test('a cut schema expands from the document as serve expands it, without the examples the view withholds', () => {
  const documented = {
    components: {
      schemas: {
        Customer: {
          type: 'object',
          example: { id: 'cus_9s6XKzkNRiz8i3' },
          properties: { id: { type: 'string', example: 'cus_9s6XKzkNRiz8i3' }, plan: { type: 'string' } },
        },
      },
    },
  };
  const reads: string[] = [];
  const expand = withheldExpander((apiId) => {
    reads.push(apiId);
    return documented;
  });
  const schema = expand('pay.a', '#/components/schemas/Customer');
  assert.deepEqual(Object.keys((schema as { properties: object }).properties), ['id', 'plan']);
  assert.doesNotMatch(JSON.stringify(schema), /cus_9s6/);
  assert.equal(expand('pay.a', '#/components/schemas/Customer'), schema, 'expanded once, stripped once');
  assert.equal(expand('pay.a', '#/components/schemas/Missing'), undefined);
  assert.deepEqual(reads, ['pay.a']);
});

test('within reach: declared keys through branches and cuts, prefixes outside examples, places as the prior names them', () => {
  const schema = {
    allOf: [{ type: 'object', properties: { a: { type: 'integer' } } }, { [CUT_KEYWORD]: '#/components/schemas/B' }],
  } as JsonSchema;
  const expanded = { properties: { b: { type: 'array', items: { properties: { c: { type: 'integer' } } } } } };
  const expand = (at: string) => (at === '#/components/schemas/B' ? (expanded as JsonSchema) : undefined);
  const body = { a: 1, b: [{ c: 1, d: 2 }], e: { f: 3 } };
  assert.deepEqual(declaredKeys(body, schema, expand), [true, true, true, false, false, false]);
  // The same keys, in the same order, as the comparison lists them.
  assert.equal(declaredKeys(body, schema, expand).length, compareToExample(body, {}).keys.length);

  const prefixes = documentPrefixes({
    description: 'Ids of payments begin with pi_.',
    example: { id: 'acct_1032D82eZvKYlo2C' },
    properties: { charge: { pattern: '^ch_[A-Za-z0-9]+$', examples: ['py_3MtwBwLkdIwHu7ix'] } },
    'x-links': 'see evt_1NG8Du2eZvKYlo2CUI79vXWy',
  });
  assert.deepEqual([...prefixes].sort(), ['ch_', 'evt_', 'pi_']);
  const sent = new Set<string>();
  prefixesIn(requestText({ customer: 'cus_NffrFeUfNV2Hib', note: 'in progress' }), sent);
  assert.deepEqual([...sent], ['cus_']);

  assert.deepEqual(siteOf('/data/0/customer_id'), { key: 'customer_id', parent: 'data' });
  assert.deepEqual(siteOf('/items/1'), { key: 'item', parent: '' });
  assert.deepEqual(siteOf('/owner/~1login'), { key: 'login', parent: 'owner' });
});
