import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorStream, injectedError, kindOfStatus, type Injection } from '../../src/simulator/inject.js';
import type { InjectedErrorKind } from '../../src/simulator/types.js';

function draws(stream: ErrorStream, n: number, rate?: number): (Injection | undefined)[] {
  return Array.from({ length: n }, () => stream.next('t', rate));
}

test('the same seed gives the same injections; another seed gives others', () => {
  const a = draws(new ErrorStream(42, { errorRate: 0.2 }), 2000);
  const b = draws(new ErrorStream(42, { errorRate: 0.2 }), 2000);
  const c = draws(new ErrorStream(43, { errorRate: 0.2 }), 2000);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  const far = draws(new ErrorStream(2 ** 40 + 42, { errorRate: 0.2 }), 2000);
  assert.notDeepEqual(a, far, 'the high bits of a seed count too');
});

test('about errorRate of the calls fail, with kinds in proportion to their weights', () => {
  const stream = new ErrorStream(7);
  const results = draws(stream, 40_000);
  const injected = results.filter((r) => r !== undefined);
  assert.ok(Math.abs(injected.length / results.length - 0.05) < 0.005, `rate ${injected.length / results.length}`);
  const byKind = new Map<InjectedErrorKind, number>();
  for (const r of injected) byKind.set(r!.kind, (byKind.get(r!.kind) ?? 0) + 1);
  const share = (kind: InjectedErrorKind) => (byKind.get(kind) ?? 0) / injected.length;
  assert.ok(Math.abs(share('rate_limit') - 0.4) < 0.05);
  assert.ok(Math.abs(share('network') - 0.3) < 0.05);
  assert.ok(Math.abs(share('timeout') - 0.2) < 0.05);
  assert.ok(Math.abs(share('auth') - 0.1) < 0.05);
  assert.equal(stream.position, 40_000);
});

test('errorRate 0 injects nothing, 1 injects on every call', () => {
  assert.ok(draws(new ErrorStream(1, { errorRate: 0 }), 10_000).every((r) => r === undefined));
  assert.ok(draws(new ErrorStream(1, { errorRate: 1 }), 1000).every((r) => r !== undefined));
});

test('a per-call rate override reads the same numbers, so later decisions do not shift', () => {
  const plain = new ErrorStream(5, { errorRate: 0.3 });
  const overridden = new ErrorStream(5, { errorRate: 0.3 });
  const first = draws(plain, 50);
  draws(overridden, 50, 0);
  assert.ok(first.some((r) => r !== undefined));
  assert.deepEqual(draws(plain, 500), draws(overridden, 500));
});

test('each kind answers its own problem shape', () => {
  const only = (kind: InjectedErrorKind) =>
    draws(new ErrorStream(3, { errorRate: 1, errorKinds: { [kind]: 1 }, timeoutDelayMs: 25 }), 200) as Injection[];

  const limits = only('rate_limit');
  for (const r of limits) {
    assert.equal(r.status, 429);
    assert.equal(r.kind, 'rate_limit');
    assert.equal(r.headers['content-type'], 'application/problem+json');
    const seconds = Number(r.headers['retry-after']);
    assert.ok(seconds >= 1 && seconds <= 5);
    assert.deepEqual(r.body, {
      type: 'https://toolenv.dev/problems/too-many-requests',
      title: 'Too Many Requests',
      status: 429,
      detail: `rate limit exceeded for t; retry after ${seconds} s`,
      tool: 't',
      retry_after: seconds,
    });
    assert.equal(r.delayMs, 0);
  }
  assert.ok(new Set(limits.map((r) => r.headers['retry-after'])).size > 1, 'Retry-After varies');

  const network = only('network');
  assert.deepEqual(new Set(network.map((r) => r.status)), new Set([502, 503]));
  for (const r of network)
    assert.equal((r.body as { title: string }).title, r.status === 502 ? 'Bad Gateway' : 'Service Unavailable');

  for (const r of only('timeout')) {
    assert.equal(r.status, 504);
    assert.equal(r.delayMs, 25);
  }
  for (const r of only('auth')) {
    assert.equal(r.status, 401);
    assert.equal(r.headers['www-authenticate'], 'ApiKey');
    assert.match((r.body as { detail: string }).detail, /missing API key/);
  }
});

test('kinds map to and from statuses for forced codes', () => {
  assert.equal(kindOfStatus(429), 'rate_limit');
  assert.equal(kindOfStatus(503), 'network');
  assert.equal(kindOfStatus(504), 'timeout');
  assert.equal(kindOfStatus(401), 'auth');
  assert.equal(kindOfStatus(500), undefined);
  assert.equal(injectedError('network', 'x', { status: 503 }).status, 503);
});

test('bad configuration is refused with the reason', () => {
  assert.throws(() => new ErrorStream(1, { errorRate: 1.5 }), /errorRate must be between 0 and 1/);
  assert.throws(() => new ErrorStream(1, { errorKinds: { meteor: 1 } as never }), /unknown error kind "meteor"/);
  assert.throws(() => new ErrorStream(1, { errorKinds: { auth: 0 } }), /at least one kind/);
  assert.throws(() => new ErrorStream(1.5), /seed must be a safe integer/);
  assert.throws(() => new ErrorStream(1).next('t', -1), /errorRate/);
});
