import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Tool } from '../../src/library/tool.js';
import { openCache } from '../../src/simulator/cache.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import type { Responder } from '../../src/simulator/types.js';
import { Rules, type ToolSource } from '../../src/simulator/validate.js';
import { petstoreTools, tempDir } from '../fixtures/tools.js';

/** Stripe's shape: the request body is one object parameter, so `balance` and `email` belong under `body`. */
const postCustomers: Tool = {
  id: 'stripe_com__PostCustomers',
  name: 'Post customers',
  description: 'Creates a new customer object.',
  category: 'financial',
  parameters: {
    type: 'object',
    properties: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { balance: { type: 'integer' }, email: { type: 'string' }, name: { type: 'string' } },
      },
    },
  },
  bindings: { body: { in: 'body', name: '' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'stripe.com',
    method: 'post',
    path: '/v1/customers',
    operation_id: 'PostCustomers',
    server: null,
  },
};

/** API-Bank's kind: numbers and booleans in the schema, gold calls that send them as strings. */
const geocode: Tool = {
  id: 'geo_lookup',
  name: 'geo_lookup',
  description: 'Places near a point',
  category: 'maps',
  parameters: {
    type: 'object',
    required: ['latitude', 'longitude'],
    properties: {
      latitude: { type: 'number', minimum: -90, maximum: 90 },
      longitude: { type: 'number' },
      limit: { type: 'integer', minimum: 1 },
      open_now: { type: 'boolean' },
      kinds: { type: 'array', items: { type: 'string' } },
      filter: { type: 'object', properties: { radius: { type: 'integer' } } },
      name: { type: 'string' },
    },
  },
  examples: [],
  origin: { format: 'openai', name: 'geo.lookup' },
};

const open: Tool = {
  id: 'free_form',
  name: 'free_form',
  description: 'Takes anything',
  category: 'misc',
  parameters: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
  examples: [],
  origin: { format: 'openai', name: 'free.form' },
};

const schemaless: Tool = { ...open, id: 'no_params', parameters: { type: 'object', properties: {} } };

const tools = [...petstoreTools, postCustomers, geocode, open, schemaless];

function source(list: Tool[]): ToolSource {
  const byId = new Map(list.map((t) => [t.id, t]));
  return { get: (id) => byId.get(id), ids: () => list.map((t) => t.id) };
}

const echo: Responder = {
  name: 'synth',
  respond: async (tool, args) => ({ status: 200, body: { tool: tool.id, args } }),
};

describe('unknown arguments', () => {
  it('reject (the default): a 400 naming each, where it belongs, and the parameters the tool takes', () => {
    const rules = new Rules(source(tools));
    const outcome = rules.check('stripe_com__PostCustomers', { balance: 100, email: 'a@b.co' });
    assert.ok(!outcome.ok);
    assert.equal(outcome.problem.status, 400);
    assert.equal(outcome.problem.title, 'Unknown arguments');
    assert.deepEqual(outcome.problem.unknown, ['balance', 'email']);
    assert.deepEqual(outcome.problem.allowed, ['body']);
    assert.match(
      outcome.problem.detail!,
      /unknown arguments "balance", "email" for stripe_com__PostCustomers; its parameters: body/,
    );
    assert.deepEqual(outcome.problem.errors, [
      { path: '/balance', message: 'is not a parameter of stripe_com__PostCustomers; did you mean "body.balance"?' },
      { path: '/email', message: 'is not a parameter of stripe_com__PostCustomers; did you mean "body.email"?' },
    ]);
    assert.ok(rules.check('stripe_com__PostCustomers', { body: { balance: 100, email: 'a@b.co' } }).ok);
  });

  it("hints a misspelled name, and reports the declared arguments' own errors in the same answer", () => {
    const rules = new Rules(source(tools));
    const outcome = rules.check('petstore_test__getPetById', { pet_id: 7, bogus: 1 });
    assert.ok(!outcome.ok);
    assert.deepEqual(outcome.problem.errors, [
      { path: '/pet_id', message: 'is not a parameter of petstore_test__getPetById; did you mean "petId"?' },
      { path: '/bogus', message: 'is not a parameter of petstore_test__getPetById' },
      { path: '/petId', message: 'is required' },
    ]);
  });

  it('leaves tools whose schema admits any name alone', () => {
    const rules = new Rules(source(tools));
    assert.ok(rules.check('free_form', { a: 'x', anything: 1 }).ok);
    assert.ok(rules.check('no_params', { anything: 1 }).ok);
  });

  it('ignore: dropped before the answer and the cache key, and said in x-toolenv-ignored', async () => {
    const cache = openCache(join(tempDir('toolenv-rules-'), 'responses.db'), 'read-write')!;
    const simulator = createSimulator({
      store: source(tools),
      cache,
      responders: [echo],
      errorRate: 0,
      unknownArguments: 'ignore',
    });
    const first = await simulator.call('petstore_test__getPetById', { petId: 7, bogus: 1, 'we ird\n': 2 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { tool: 'petstore_test__getPetById', args: { petId: 7 } });
    assert.deepEqual(first.ignored, ['bogus', 'we ird\n']);
    assert.equal(first.headers['x-toolenv-ignored'], 'bogus, we%20ird%0A');
    const plain = await simulator.call('petstore_test__getPetById', { petId: 7 });
    assert.equal(plain.source, 'cache');
    assert.equal(plain.headers['x-toolenv-ignored'], undefined);
    const wrong = await simulator.call('petstore_test__getPetById', { bogus: 1 });
    assert.equal(wrong.status, 400);
    assert.equal((wrong.body as { title: string }).title, 'Invalid arguments');
    cache.close();
  });
});

describe('coercion', () => {
  const call = {
    latitude: '40.7128',
    longitude: '-74.0060',
    limit: '5',
    open_now: 'TRUE',
    kinds: 'cafe',
    filter: { radius: ['500'] },
    name: 'Joe',
  };

  it('strict (the default) refuses numeric and boolean strings', () => {
    const outcome = new Rules(source(tools)).check('geo_lookup', call);
    assert.ok(!outcome.ok);
    assert.equal(outcome.problem.title, 'Invalid arguments');
    const paths = (outcome.problem.errors as { path: string }[]).map((e) => e.path);
    assert.deepEqual(
      new Set(paths),
      new Set(['/latitude', '/longitude', '/limit', '/open_now', '/kinds', '/filter/radius']),
    );
  });

  it('lax coerces what pydantic-style servers accept, and says what it changed', () => {
    const outcome = new Rules(source(tools), { coercion: 'lax' }).check('geo_lookup', call);
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.args, {
      latitude: 40.7128,
      longitude: -74.006,
      limit: 5,
      open_now: true,
      kinds: ['cafe'],
      filter: { radius: 500 },
      name: 'Joe',
    });
    assert.deepEqual(
      new Set(outcome.coerced!.map((c) => `${c.path} ${c.from}->${c.to}`)),
      new Set([
        '/latitude string->number',
        '/longitude string->number',
        '/limit string->integer',
        '/open_now string->boolean',
        '/kinds string->array',
        '/filter/radius array->integer',
      ]),
    );
    assert.equal(call.latitude, '40.7128', "the caller's arguments are untouched");
  });

  it('lax still refuses what no coercion mends, with the errors of the call as sent', () => {
    const rules = new Rules(source(tools), { coercion: 'lax' });
    const words = rules.check('geo_lookup', { latitude: 'north', longitude: '1' });
    assert.ok(!words.ok);
    assert.deepEqual(words.problem.errors, [
      { path: '/latitude', message: 'must be number' },
      { path: '/longitude', message: 'must be number' },
    ]);
    const range = rules.check('geo_lookup', { latitude: '91', longitude: '1' });
    assert.ok(!range.ok, 'a coerced value must still meet the schema');
    const fraction = rules.check('geo_lookup', { latitude: '1', longitude: '1', limit: '2.5' });
    assert.ok(!fraction.ok);
    assert.ok(
      !rules.check('geo_lookup', { latitude: 1, longitude: 1, name: 5 }).ok,
      'numbers are not coerced to strings',
    );
  });

  it('a coerced call answers like the typed one (same cache entry) and carries x-toolenv-coerced', async () => {
    const cache = openCache(join(tempDir('toolenv-rules-'), 'responses.db'), 'read-write')!;
    const simulator = createSimulator({
      store: source(tools),
      cache,
      responders: [echo],
      errorRate: 0,
      coercion: 'lax',
    });
    const typed = await simulator.call('geo_lookup', { latitude: 40.7, longitude: -74 });
    const coerced = await simulator.call('geo_lookup', { latitude: '40.7', longitude: '-74' });
    assert.equal(coerced.source, 'cache');
    assert.deepEqual(coerced.body, typed.body);
    assert.equal(coerced.headers['x-toolenv-coerced'], '/latitude string->number, /longitude string->integer');
    assert.deepEqual(coerced.coerced, [
      { path: '/latitude', from: 'string', to: 'number' },
      { path: '/longitude', from: 'string', to: 'integer' },
    ]);
    assert.equal(typed.headers['x-toolenv-coerced'], undefined);
    cache.close();
  });
});
