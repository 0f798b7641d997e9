import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LibraryStore } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { createSimulator, type SimulatorOptions } from '../../src/simulator/pipeline.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import type { CallResult, Responder } from '../../src/simulator/types.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const orderTool: Tool = {
  id: 'shop_getOrder',
  name: 'Get an order',
  description: 'Get an order by id',
  category: 'ecommerce',
  parameters: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  response_schema: {
    type: 'object',
    required: ['id', 'total'],
    properties: { id: { type: 'string' }, total: { type: 'number' } },
  },
  examples: [
    { name: 'paid', status: 200, body: { id: 'o-1', total: 12.5 } },
    { name: 'missing', status: 404, body: { message: 'order not found' } },
  ],
  origin: { format: 'openai', name: 'shop.getOrder' },
};

const store = LibraryStore.open(writeFixtureLibrary([...petstoreTools, orderTool], [petstoreApi]));

/** A responder that counts its calls and answers after a tick, as a model would after a while. */
function countingResponder(name: 'model' | 'synth' = 'model') {
  const counter = { calls: 0 };
  const responder: Responder = {
    name,
    respond: async (tool, args) => {
      counter.calls++;
      await new Promise((resolve) => setImmediate(resolve));
      return { status: tool.response_status ?? 200, body: { echo: args, by: name } };
    },
  };
  return { responder, counter };
}

function simulator(options: Partial<SimulatorOptions> = {}) {
  return createSimulator({
    store,
    responders: [examplesResponder, synthResponder],
    errorRate: 0,
    timeoutDelayMs: 0,
    ...options,
  });
}

function freshCache(): ResponseCache {
  return ResponseCache.open(join(tempDir('toolenv-pipeline-'), 'responses.db'));
}

const summary = (r: CallResult) => ({ status: r.status, source: r.source, error: r.error });

test('rule errors come back as problem responses from the rule layer', async () => {
  const sim = simulator();
  const unknown = await sim.call('getPetById', {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.source, 'rule');
  assert.equal(unknown.headers['content-type'], 'application/problem+json');
  assert.equal((unknown.body as { suggestions: string[] }).suggestions[0], 'petstore_test__getPetById');

  const invalid = await sim.call('petstore_test__getPetById', { petId: 'x' });
  assert.equal(invalid.status, 400);
  assert.deepEqual((invalid.body as { errors: unknown }).errors, [{ path: '/petId', message: 'must be integer' }]);

  const notObject = await sim.call('petstore_test__getPetById', [1]);
  assert.equal(notObject.status, 400);

  const badPrefer = await sim.call('petstore_test__getPetById', { petId: 1 }, { controls: { code: 42 } });
  assert.equal(badPrefer.status, 400);
  assert.match((badPrefer.body as { detail: string }).detail, /code must be an HTTP status from 100 to 599/);
});

test(
  'a miss is answered by the responders in order and written ' + 'back; the same call then comes from the cache',
  async () => {
    const cache = freshCache();
    const sim = simulator({ cache });
    const first = await sim.call('petstore_test__listPets', { limit: 3 });
    assert.equal(first.status, 200);
    assert.equal(first.source, 'synth');
    assert.ok(Array.isArray(first.body));
    const second = await sim.call('petstore_test__listPets', JSON.parse('{ "limit" : 3 }'));
    assert.deepEqual(second, { ...first, source: 'cache' });

    const example = await sim.call('petstore_test__getPetById', { petId: 7 });
    assert.deepEqual(summary(example), { status: 200, source: 'example', error: undefined });
    assert.deepEqual(example.body, { id: 7, name: 'Rex', status: 'sold' });
    assert.equal((await sim.call('petstore_test__getPetById', { petId: 7 })).source, 'cache');

    assert.equal(cache.count(), 2);
    assert.deepEqual(cache.stats().by_source, { synth: 1, example: 1 });
    assert.equal(sim.metrics.cacheHits, 2);
    assert.equal(sim.metrics.cacheMisses, 2);
    assert.equal(sim.metrics.cacheWrites, 2);
    cache.close();
  },
);

test('two simulators with the same seed inject the same errors on the same call sequence', async () => {
  const sequence = Array.from({ length: 300 }, (_, i) => ({
    id: i % 2 ? 'petstore_test__listPets' : 'weather_forecast',
    args: i % 2 ? { limit: 1 + (i % 50) } : { city: `c${i}` },
  }));
  const run = async (seed: number) => {
    const sim = simulator({ seed, errorRate: 0.2, cache: freshCache() });
    const out: ReturnType<typeof summary>[] = [];
    for (const { id, args } of sequence) out.push(summary(await sim.call(id, args)));
    return out;
  };
  const a = await run(11);
  const b = await run(11);
  assert.deepEqual(a, b);
  const injected = a.filter((r) => r.error !== undefined);
  assert.ok(injected.length > 30 && injected.length < 90, `${injected.length} of 300 injected at rate 0.2`);
  assert.ok(injected.every((r) => r.source === 'rule'));
  assert.notDeepEqual(await run(12), a);
});

test('concurrent calls draw injections in call order, as if they had been made one by one', async () => {
  const { responder } = countingResponder();
  const args = Array.from({ length: 200 }, (_, i) => ({ city: `c${i}` }));
  const sequential: ReturnType<typeof summary>[] = [];
  const one = simulator({ seed: 3, errorRate: 0.3, responders: [responder] });
  for (const a of args) sequential.push(summary(await one.call('weather_forecast', a)));
  const all = simulator({ seed: 3, errorRate: 0.3, responders: [responder] });
  assert.deepEqual(await Promise.all(args.map((a) => all.call('weather_forecast', a).then(summary))), sequential);
});

test('errorRate 0 injects nothing; injected errors are never cached', async () => {
  const quiet = simulator({ errorRate: 0 });
  for (let i = 0; i < 300; i++)
    assert.equal((await quiet.call('weather_forecast', { city: `c${i}` })).error, undefined);

  const cache = freshCache();
  const failing = simulator({ errorRate: 1, cache });
  for (let i = 0; i < 50; i++) assert.ok((await failing.call('weather_forecast', { city: `c${i}` })).error);
  assert.equal(cache.count(), 0);
  assert.equal(
    Object.values(failing.metrics.injected).reduce((a, b) => a + b),
    50,
  );

  const overridden = await failing.call('weather_forecast', { city: 'x' }, { errorRate: 0 });
  assert.equal(overridden.error, undefined, 'a per-call rate overrides the simulator rate');
  cache.close();
});

test('each injected kind answers its status, headers and error kind', async () => {
  const expected = { rate_limit: [429], network: [502, 503], timeout: [504], auth: [401] } as const;
  for (const [kind, statuses] of Object.entries(expected)) {
    const sim = simulator({ errorRate: 1, errorKinds: { [kind]: 1 } });
    const result = await sim.call('weather_forecast', { city: 'Oslo' });
    assert.equal(result.error, kind);
    assert.ok((statuses as readonly number[]).includes(result.status));
    assert.equal(result.source, 'rule');
    assert.equal(result.headers['content-type'], 'application/problem+json');
    assert.equal((result.body as { status: number }).status, result.status);
    if (kind === 'rate_limit') assert.match(result.headers['retry-after']!, /^[1-5]$/);
    assert.equal(sim.metrics.injected[kind as keyof typeof expected], 1);
  }
});

test('an episode reads its own stream; the simulator stream is untouched', async () => {
  const sim = simulator({ seed: 1, errorRate: 0.5 });
  const episode = sim.errorStream(99);
  for (let i = 0; i < 20; i++) await sim.call('weather_forecast', { city: 'x' }, { errors: episode });
  assert.equal(episode.position, 20);
  assert.equal(sim.errors.position, 0);
  assert.equal(episode.errorRate, 0.5);
});

test('Prefer: code forces a status; example picks a named example; dynamic synthesizes afresh', async () => {
  const cache = freshCache();
  const sim = simulator({ cache, errorRate: 1 });
  const limited = await sim.call('shop_getOrder', { orderId: 'o-1' }, { controls: { code: 429 } });
  assert.deepEqual(summary(limited), { status: 429, source: 'rule', error: 'rate_limit' });
  assert.equal(limited.headers['retry-after'], '1');
  const missing = await sim.call('shop_getOrder', { orderId: 'o-1' }, { controls: { code: 404 } });
  assert.deepEqual(summary(missing), { status: 404, source: 'example', error: undefined });
  assert.deepEqual(missing.body, { message: 'order not found' });
  const failed = await sim.call('shop_getOrder', { orderId: 'o-1' }, { controls: { code: 500 } });
  assert.equal(failed.status, 500);
  assert.equal((failed.body as { type: string }).type, 'https://toolenv.dev/problems/internal-server-error');
  const created = await sim.call('shop_getOrder', { orderId: 'o-1' }, { controls: { code: 201 } });
  assert.equal(created.status, 400);
  assert.match((created.body as { detail: string }).detail, /documents no 201 response: its success status is 200/);
  const success = await sim.call('shop_getOrder', { orderId: 'o-1' }, { controls: { code: 200 } });
  assert.deepEqual(
    summary(success),
    { status: 200, source: 'example', error: undefined },
    'the success code skips injection',
  );

  const quiet = simulator({ cache });
  const named = await quiet.call('shop_getOrder', { orderId: 'o-9' }, { controls: { example: 'missing' } });
  assert.deepEqual(summary(named), { status: 404, source: 'example', error: undefined });
  const unknownName = await quiet.call('shop_getOrder', { orderId: 'o-9' }, { controls: { example: 'refunded' } });
  assert.equal(unknownName.status, 404);
  assert.equal((unknownName.body as { title: string }).title, 'Unknown example');
  assert.deepEqual((unknownName.body as { examples: string[] }).examples, ['paid', 'missing']);

  const dynamic = await quiet.call('shop_getOrder', { orderId: 'o-1' }, { controls: { dynamic: true } });
  assert.equal(dynamic.source, 'synth', 'dynamic skips the cache and the examples responder');
  assert.equal(typeof (dynamic.body as { total: unknown }).total, 'number');
  assert.deepEqual(
    [...cache.entries()].map((e) => e.source),
    ['example'],
    'only the plain success call was written back',
  );
  cache.close();
});

test('read-only caches serve hits and take no write-backs; without a cache every call is answered afresh', async () => {
  const file = join(tempDir('toolenv-pipeline-'), 'responses.db');
  const writer = ResponseCache.open(file);
  await simulator({ cache: writer }).call('weather_forecast', { city: 'Oslo' });
  writer.close();
  const reader = ResponseCache.open(file, { mode: 'read-only' });
  const sim = simulator({ cache: reader });
  assert.equal((await sim.call('weather_forecast', { city: 'Oslo' })).source, 'cache');
  assert.equal((await sim.call('weather_forecast', { city: 'Bergen' })).source, 'synth');
  assert.equal((await sim.call('weather_forecast', { city: 'Bergen' })).source, 'synth');
  assert.equal(reader.count(), 1);
  reader.close();

  const off = simulator();
  assert.equal((await off.call('weather_forecast', { city: 'Oslo' })).source, 'synth');
  assert.equal((await off.call('weather_forecast', { city: 'Oslo' })).source, 'synth');
  assert.equal(off.metrics.cacheMisses, 0);
});

test(
  'an answer whose entry (arguments + body) is over the size ' + 'limit is served but not cached, and counted',
  async () => {
    const cache = ResponseCache.open(join(tempDir('toolenv-pipeline-'), 'responses.db'), { maxEntryBytes: 2000 });
    const { responder, counter } = countingResponder();
    const sim = simulator({ cache, responders: [responder] });
    const long = { city: 'x'.repeat(3000) };
    for (let i = 0; i < 2; i++) {
      const result = await sim.call('weather_forecast', long);
      assert.equal(result.status, 200);
      assert.equal(result.source, 'model', 'answered afresh each time');
      assert.deepEqual((result.body as { echo: unknown }).echo, long);
    }
    assert.equal(counter.calls, 2);
    assert.equal(cache.count(), 0);
    assert.equal(sim.metrics.cacheTooLarge, 2);
    assert.match(sim.metrics.toPrometheus(), /^toolenv_cache_too_large_total 2$/m);
    await sim.call('weather_forecast', { city: 'Oslo' });
    assert.equal(
      (await sim.call('weather_forecast', { city: 'Oslo' })).source,
      'cache',
      'small entries are still cached',
    );
    cache.close();
  },
);

test('500 parallel distinct calls leave 500 rows; parallel identical misses ask the responder once', async () => {
  const cache = freshCache();
  const { responder, counter } = countingResponder();
  const sim = simulator({ cache, responders: [responder] });
  const results = await Promise.all(
    Array.from({ length: 500 }, (_, i) => sim.call('weather_forecast', { city: `city-${i}`, days: 1 + (i % 14) })),
  );
  assert.ok(results.every((r) => r.status === 200 && r.source === 'model'));
  assert.equal(cache.count(), 500);
  assert.equal(counter.calls, 500);

  const same = await Promise.all(Array.from({ length: 20 }, () => sim.call('weather_forecast', { city: 'Paris' })));
  assert.equal(counter.calls, 501);
  assert.ok(same.every((r) => r.source === 'model' && JSON.stringify(r.body) === JSON.stringify(same[0]!.body)));
  assert.notEqual(same[1]!.body, same[2]!.body, 'each caller gets its own body object');
  assert.equal((await sim.call('weather_forecast', { city: 'Paris' })).source, 'cache');
  cache.close();
});

test('a responder that throws is counted and the next one answers; when none can, a 500 or 501 problem', async () => {
  const broken: Responder = { name: 'model', respond: () => Promise.reject(new Error('model server down')) };
  const silent: Responder = { name: 'model', respond: async () => undefined };
  const cache = freshCache();
  const fallback = simulator({ cache, responders: [broken, synthResponder] });
  const answered = await fallback.call('weather_forecast', { city: 'Oslo' });
  assert.equal(answered.source, 'synth');
  assert.equal(fallback.metrics.responderErrors, 1);

  const failing = simulator({ cache, responders: [broken] });
  const failed = await failing.call('weather_forecast', { city: 'Rome' });
  assert.equal(failed.status, 500);
  assert.match((failed.body as { detail: string }).detail, /model server down/);
  const none = await simulator({ cache, responders: [silent] }).call('weather_forecast', { city: 'Rome' });
  assert.equal(none.status, 501);
  assert.equal(cache.count(), 1, 'failures are not written back');
  cache.close();
});

test(
  'metrics count calls by source and status, latency, cache ' + 'traffic and injections, in Prometheus text',
  async () => {
    const cache = freshCache();
    const sim = simulator({ cache, errorRate: 1, errorKinds: { auth: 1 } });
    await sim.call('nope', {});
    await sim.call('weather_forecast', { city: 'Oslo' });
    await sim.call('weather_forecast', { city: 'Oslo' }, { errorRate: 0 });
    await sim.call('weather_forecast', { city: 'Oslo' }, { errorRate: 0 });
    const text = sim.metrics.toPrometheus();
    assert.match(text, /^toolenv_calls_total\{source="rule",status="404"\} 1$/m);
    assert.match(text, /^toolenv_calls_total\{source="rule",status="401"\} 1$/m);
    assert.match(text, /^toolenv_calls_total\{source="synth",status="200"\} 1$/m);
    assert.match(text, /^toolenv_calls_total\{source="cache",status="200"\} 1$/m);
    assert.match(text, /^toolenv_call_duration_seconds_count\{source="rule"\} 2$/m);
    assert.match(text, /^toolenv_call_duration_seconds_bucket\{source="cache",le="\+Inf"\} 1$/m);
    assert.match(text, /^toolenv_cache_hits_total 1$/m);
    assert.match(text, /^toolenv_cache_misses_total 1$/m);
    assert.match(text, /^toolenv_injected_errors_total\{kind="auth"\} 1$/m);
    assert.match(text, /^toolenv_injected_errors_total\{kind="timeout"\} 0$/m);
    assert.match(text, /^# TYPE toolenv_call_duration_seconds histogram$/m);
    assert.equal(sim.metrics.totalCalls(), 4);
    cache.close();
  },
);
