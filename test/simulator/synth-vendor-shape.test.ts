/**
 * Answers shaped as the vendors' documented examples are (issue #49): small hand-made schemas and priors, every body
 * checked against its schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { contextKeys, PRIOR_VERSION, type PriorEntry, type ValuePrior } from '../../src/simulator/prior/prior.js';
import { addShape, prunedShape, type ShapeNode, shapeKey } from '../../src/simulator/prior/shapes.js';
import { synthesize } from '../../src/simulator/synth/index.js';

const ajv = createAjv();
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

const toolOf = (response_schema: JsonSchema | undefined, extra: Partial<Tool> = {}): Tool => ({
  id: 'shop_example__get_order',
  name: 'Get an order',
  description: 'Retrieve an order',
  category: 'ecommerce',
  parameters: { type: 'object', properties: {} },
  ...(response_schema === undefined ? {} : { response_schema }),
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'shop.example',
    method: 'get',
    path: '/order',
    operation_id: null,
    server: null,
  },
  ...extra,
});

/** A prior holding `entries` under the field's anywhere-context (`k…`), as if many APIs documented it. */
function priorOf(entries: Record<string, PriorEntry>): ValuePrior {
  const fields: Record<string, PriorEntry> = {};
  for (const [key, entry] of Object.entries(entries))
    fields[contextKeys({ api: '', category: '', parent: '', key }).at(-1)!] = entry;
  return { version: PRIOR_VERSION, left_out: [], apis: 2, values: 0, fields };
}

function bodies(tool: Tool, prior?: ValuePrior): unknown[] {
  const validate = ajv.compile(tool.response_schema as Exclude<JsonSchema, boolean>);
  return SEEDS.map((seed) => {
    const { body } = synthesize(tool, {}, seed, prior);
    assert.ok(validate(body), `${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
    return body;
  });
}

test('a nullable body is never null; a nullable object is not nulled by a prior that counts only its nulls', () => {
  const tool = toolOf({
    type: ['object', 'null'],
    required: ['shipping'],
    properties: {
      shipping: { type: ['object', 'null'], required: ['city'], properties: { city: { type: 'string' } } },
    },
  });
  // Documented ten times as an object (not counted: the prior counts scalars) and twice as null.
  const prior = priorOf({ shipping: { n: 2, classes: { null: 2 }, samples: {} } });
  const answers = bodies(tool, prior) as ({ shipping: object | null } | null)[];
  assert.ok(answers.every((body) => body !== null));
  const nulled = answers.filter((body) => body!.shipping === null).length;
  assert.ok(nulled <= 10, `${nulled} of ${answers.length} shipping objects null`);
});

test('declared optional fields all come in a body of ordinary size; past its first values, most of them', () => {
  const names = ['number', 'status', 'placed_at', 'note', 'total', 'currency', 'gift', 'channel'];
  const record = {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
  } as const;
  for (const body of bodies(toolOf(record)) as Record<string, unknown>[]) assert.deepEqual(Object.keys(body), names);
  // Twenty records of eight fields side by side: those that begin in the first hundred values whole, the later ones
  // at the usual chances.
  const parts = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`part_${i}`, record]));
  const wide = toolOf({ type: 'object', required: Object.keys(parts), properties: parts });
  const sizes = (bodies(wide) as Record<string, Record<string, unknown>>[]).map((body) =>
    Object.values(body).map((part) => Object.keys(part).length),
  );
  assert.ok(sizes.every((each) => each.slice(0, 10).every((n) => n === names.length)));
  assert.ok(sizes.some((each) => each.some((n) => n < names.length)));
});

test("a list's items show the keys its first item shows, as one serializer writes a page", () => {
  const names = ['number', 'status', 'placed_at', 'note', 'total', 'currency', 'gift', 'channel'];
  const record = {
    type: 'object',
    properties: {
      ...Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
      lines: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
      },
    },
  } as const;
  // Past the first hundred values (the padding), the first order takes some of its fields; the others take the same.
  const page = {
    type: 'object',
    required: ['padding', 'orders'],
    properties: {
      padding: { type: 'array', minItems: 120, maxItems: 120, items: { type: 'integer' } },
      orders: { type: 'array', minItems: 6, maxItems: 6, items: record },
    },
  } as const;
  const answers = bodies(toolOf(page)) as { orders: Record<string, unknown>[] }[];
  const shapeOf = (item: Record<string, unknown>) => Object.keys(item).join(',');
  for (const { orders } of answers) {
    assert.equal(new Set(orders.map(shapeOf)).size, 1, orders.map(shapeOf).join(' | '));
    const lines = orders.flatMap((order) => (order.lines as Record<string, unknown>[] | undefined) ?? []);
    assert.ok(new Set(lines.map(shapeOf)).size <= 1, 'nested lists share one shape too');
  }
  assert.ok(answers.some(({ orders }) => Object.keys(orders[0]!).length < names.length + 1));
});

test("a named value stands only where it is of the vendors' usual class, value by value", () => {
  // Titles are one to three words: under vendors whose names are mostly single words, only the one-word titles
  // stand; under vendors whose names are mostly phrases, only the longer ones.
  const tool = toolOf({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
  for (const [usual, other, spaced] of [
    ['word', 'phrase', false],
    ['phrase', 'word', true],
  ] as const) {
    const samples = { word: ['Burglary', 'sfbackend'], phrase: ['Referral Judge', 'Big One'] };
    const prior = priorOf({ name: { n: 40, classes: { [usual]: 30, [other]: 10 }, samples } });
    const names = (bodies(tool, prior) as { name: string }[]).map((body) => body.name);
    assert.ok(
      names.every((name) => name.includes(' ') === spaced),
      names.join(', '),
    );
  }
});

test('an id of a fixed length longer than the usual ids is one token of that length, not an id and words', () => {
  const tool = toolOf({
    type: 'object',
    required: ['judgeTypeId'],
    properties: { judgeTypeId: { type: 'string', minLength: 18, maxLength: 18 } },
  });
  for (const body of bodies(tool) as { judgeTypeId: string }[]) assert.match(body.judgeTypeId, /^[A-Za-z0-9]{18}$/);
});

test('a number is whole unless its format or its name says fractional', () => {
  const tool = toolOf({
    type: 'object',
    required: ['quota', 'ratio', 'price'],
    properties: {
      quota: { type: 'number' },
      ratio: { type: 'number', format: 'double' },
      price: { type: 'number' },
    },
  });
  const answers = bodies(tool) as { quota: number; ratio: number; price: number }[];
  assert.ok(answers.every((body) => Number.isInteger(body.quota)));
  assert.ok(answers.some((body) => !Number.isInteger(body.ratio)));
  assert.ok(answers.some((body) => !Number.isInteger(body.price)));
});

test('a string field whose name counts or measures holds digits', () => {
  const tool = toolOf({
    type: 'object',
    required: ['UncompressedSize', 'frame_width'],
    properties: { UncompressedSize: { type: 'string' }, frame_width: { type: 'string' } },
  });
  for (const body of bodies(tool) as Record<string, string>[])
    for (const value of Object.values(body)) assert.match(value, /^\d+$/);
});

test("the API's own documented values: hashes stay hexadecimal, numbers leave the name's range, ids name the record", () => {
  const own = (key: string, entry: PriorEntry, parent = ''): ValuePrior => ({
    version: PRIOR_VERSION,
    left_out: [],
    apis: 1,
    values: entry.n,
    fields: { [contextKeys({ api: 'shop.example', category: '', parent, key })[parent ? 0 : 1]!]: entry },
  });
  const string = toolOf({ type: 'object', required: ['commit'], properties: { commit: { type: 'string' } } });
  const sha = own('commit', {
    n: 2,
    classes: { hash: 2 },
    samples: { hash: ['d6fde92930d4715a2b49857d24b940956b26d2d3'] },
  });
  for (const body of bodies(string, sha) as { commit: string }[]) assert.match(body.commit, /^[0-9a-f]{40}$/);

  const numbers = toolOf({
    type: 'object',
    required: ['created_time', 'latitude'],
    properties: { created_time: { type: 'integer' }, latitude: { type: 'number' } },
  });
  const entry = (samples: string[]): PriorEntry => ({
    n: samples.length,
    classes: { integer: samples.length },
    samples: { integer: samples },
    lo: Math.min(...samples.map(Number)),
    hi: Math.max(...samples.map(Number)),
    ints: samples.length,
  });
  const counted = { ...own('created_time', entry(['0', '12', '40'])) };
  counted.fields = {
    ...counted.fields,
    ...own('latitude', entry(['4000'])).fields,
    ...own('discount_percent', entry(['4235'])).fields,
  };
  const withPercent = toolOf({
    ...(numbers.response_schema as object),
    required: ['created_time', 'latitude', 'discount_percent'],
    properties: {
      created_time: { type: 'integer' },
      latitude: { type: 'number' },
      discount_percent: { type: 'number' },
    },
  } as JsonSchema);
  for (const body of bodies(withPercent, counted) as {
    created_time: number;
    latitude: number;
    discount_percent: number;
  }[]) {
    assert.ok(body.created_time <= 60, `the API's own values, not a time: ${body.created_time}`);
    assert.ok(Math.abs(body.latitude) <= 90, `a latitude stays one: ${body.latitude}`);
    assert.ok(body.discount_percent >= 0 && body.discount_percent <= 100, `a percentage: ${body.discount_percent}`);
  }
  // Other APIs' values are held to what the name implies.
  const elsewhere = priorOf({ created_time: entry(['0', '12', '40']) });
  for (const body of bodies(numbers, elsewhere) as { created_time: number }[]) assert.ok(body.created_time > 1e9);

  const ids = toolOf({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
  const kinds = ['cus_a1b2c3d4e5', 'order_x9y8z7w6v5', 'pi_1q2w3e4r5t', 'ch_9o8i7u6y5t'];
  const mixed = own('id', { n: 4, classes: { vendor_id: 4 }, samples: { vendor_id: kinds } }, 'order');
  for (const body of bodies(ids, mixed) as { id: string }[]) assert.match(body.id, /^order_[a-z0-9]{10}$/);
});

test("an API whose records' ids are their paths answers the path the request addressed, and below a listing's", () => {
  const paths = [
    '/subscriptions/s1/resourceGroups/rg1/watchers/w1',
    '/subscriptions/s2/resourceGroups/rg2/watchers/w2',
  ];
  const entry: PriorEntry = { n: 2, classes: { path: 2 }, samples: { path: paths } };
  const prior: ValuePrior = {
    version: PRIOR_VERSION,
    left_out: [],
    apis: 1,
    values: 4,
    fields: {
      [contextKeys({ api: 'shop.example', category: '', parent: 'watchers', key: 'id' })[0]!]: entry,
      [contextKeys({ api: 'shop.example', category: '', parent: 'value', key: 'id' })[0]!]: entry,
    },
  };
  const params = {
    type: 'object',
    required: ['subscriptionId', 'watcherName'],
    properties: { subscriptionId: { type: 'string' }, watcherName: { type: 'string' } },
  } as const;
  const record = {
    type: 'object',
    required: ['id', 'name'],
    properties: { id: { type: 'string' }, name: { type: 'string' } },
  };
  const origin = (path: string) => ({ ...toolOf(undefined).origin, path }) as Tool['origin'];
  const read = toolOf(record as JsonSchema, {
    parameters: params as JsonSchema as Tool['parameters'],
    bindings: {
      subscriptionId: { in: 'path', name: 'subscriptionId' },
      watcherName: { in: 'path', name: 'watcherName' },
    },
    origin: origin('/subscriptions/{subscriptionId}/watchers/{watcherName}'),
  });
  const args = { subscriptionId: 'sub-9', watcherName: 'nightly' };
  const body = synthesize(read, args, 1, prior).body as { id: string; name: string };
  assert.equal(body.id, '/subscriptions/sub-9/watchers/nightly');
  const list = toolOf(
    { type: 'object', required: ['value'], properties: { value: { type: 'array', items: record } } } as JsonSchema,
    {
      parameters: { type: 'object', required: ['subscriptionId'], properties: { subscriptionId: { type: 'string' } } },
      bindings: { subscriptionId: { in: 'path', name: 'subscriptionId' } },
      origin: origin('/subscriptions/{subscriptionId}/watchers'),
    },
  );
  const listed = synthesize(list, { subscriptionId: 'sub-9' }, 1, prior).body as { value: { id: string }[] };
  assert.ok(listed.value.length > 0);
  for (const item of listed.value) assert.match(item.id, /^\/subscriptions\/sub-9\/watchers\/[a-z]+\d$/);
  // Without the API's own path ids, the id is the one the request named.
  assert.equal((synthesize(read, args, 1).body as { id: string }).id, 'nightly');
});

test('a number drawn near the documented ones keeps their kinds in proportion (zeros documented 43 times in 48)', () => {
  const tool = toolOf({
    type: 'object',
    required: ['created_time'],
    properties: { created_time: { type: 'integer' } },
  });
  const entry: PriorEntry = {
    n: 48,
    classes: { integer: 43, unix_timestamp: 5 },
    samples: { integer: ['0'], unix_timestamp: ['1646164351'] },
    lo: 0,
    hi: 1_646_164_351,
    ints: 48,
  };
  const prior: ValuePrior = {
    version: PRIOR_VERSION,
    left_out: [],
    apis: 1,
    values: 48,
    fields: { [contextKeys({ api: 'shop.example', category: '', parent: '', key: 'created_time' })[1]!]: entry },
  };
  const zeros = (bodies(tool, prior) as { created_time: number }[]).filter((body) => body.created_time === 0).length;
  assert.ok(zeros >= 36, `${zeros} of ${SEEDS.length}`);
});

test("past a body's first values, the fields the API's own examples show are there, the others at the usual chances", () => {
  const names = ['number', 'status', 'placed_at', 'note', 'total', 'currency', 'gift', 'channel'];
  const record = { type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])) };
  const parts = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`part_${i}`, record]));
  const wide = toolOf({ type: 'object', required: Object.keys(parts), properties: parts } as JsonSchema);
  const fields: Record<string, PriorEntry> = {};
  for (let i = 0; i < 20; i++)
    fields[contextKeys({ api: 'shop.example', category: '', parent: `part_${i}`, key: 'gift' })[0]!] = {
      n: 1,
      classes: { word: 1 },
      samples: { word: ['wrapped'] },
    };
  const prior: ValuePrior = { version: PRIOR_VERSION, left_out: [], apis: 1, values: 20, fields };
  const answers = bodies(wide, prior) as Record<string, Record<string, unknown>>[];
  for (const body of answers) for (const part of Object.values(body)) assert.ok('gift' in part, JSON.stringify(part));
  assert.ok(answers.some((body) => Object.values(body).some((part) => !('note' in part))));
});

test("an operation without a response schema answers in the shape its API's documented bodies show", () => {
  const api: ShapeNode = { n: 0, types: {} };
  for (const data of [{ id: 1, to: '+61411111111' }, [{ template_id: 25 }], { url: 'https://x.example/f.csv' }])
    addShape(api, { http_code: 200, response_code: 'SUCCESS', response_msg: 'Done.', data });
  const noun: ShapeNode = { n: 0, types: {} };
  addShape(noun, { http_code: 200, response_code: 'SUCCESS', data: { id: 7, status: 'queued', to: '+61422222222' } });
  const prior: ValuePrior = {
    version: PRIOR_VERSION,
    left_out: [],
    apis: 1,
    values: 0,
    fields: {},
    shapes: { 'shop.example': prunedShape(api), [shapeKey('shop.example', 'sms')]: prunedShape(noun) },
  };
  // The API's shape: the keys most bodies hold, each of its usual type; `data` an object (two of three).
  const elsewhere = synthesize(toolOf(undefined), {}, 1, prior).body as Record<string, unknown>;
  assert.deepEqual(Object.keys(elsewhere).sort(), ['data', 'http_code', 'response_code', 'response_msg']);
  assert.ok(Number.isInteger(elsewhere.http_code) && typeof elsewhere.response_msg === 'string');
  assert.ok(typeof elsewhere.data === 'object' && !Array.isArray(elsewhere.data));
  // Under a noun whose operations document a body, theirs; a schema that says only "an object" takes it too.
  const sms = toolOf({ type: 'object', description: 'The result' } as JsonSchema, {
    origin: { ...toolOf(undefined).origin, path: '/sms' } as Tool['origin'],
  });
  const sent = synthesize(sms, {}, 1, prior).body as { data: Record<string, unknown> };
  assert.deepEqual(Object.keys(sent.data).sort(), ['id', 'status', 'to']);
  // A schema that says what the body holds keeps to it; without the prior, the shape comes from the tool's name.
  const declared = toolOf({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } });
  assert.deepEqual(Object.keys(synthesize(declared, {}, 1, prior).body as object), ['ok']);
  assert.ok(!('http_code' in (synthesize(toolOf(undefined), {}, 1).body as object)));
});

test('a short code documented as a word and digits keeps its word and takes new digits', () => {
  const tool = toolOf({ type: 'object', required: ['username'], properties: { username: { type: 'string' } } });
  const entry: PriorEntry = { n: 3, classes: { alphanumeric: 3 }, samples: { alphanumeric: ['john1234'] } };
  const names = (bodies(tool, priorOf({ username: entry })) as { username: string }[]).map((body) => body.username);
  for (const name of names) assert.match(name, /^john\d{4}$/);
  assert.ok(new Set(names).size > 1, 'new digits each time');
});
