import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePrefer, readControls } from '../../src/server/prefer.js';

describe('Prefer controls', () => {
  it('parses Prism-style preferences, quoted values and parameters', () => {
    assert.deepEqual(parsePrefer('code=429, example="cat, black", dynamic=true'), [
      ['code', '429'],
      ['example', 'cat, black'],
      ['dynamic', 'true'],
    ]);
    assert.deepEqual(parsePrefer('respond-async; wait=10, Code = 404'), [
      ['respond-async', 'true'],
      ['code', '404'],
    ]);
    assert.deepEqual(parsePrefer(''), []);
  });

  it('builds CallControls; query parameters win over the header; unknown preferences are ignored', () => {
    assert.deepEqual(readControls('code=429, example=cat, dynamic=false, return=minimal', new URLSearchParams()), {
      code: 429,
      example: 'cat',
      dynamic: false,
    });
    assert.deepEqual(readControls('code=429', new URLSearchParams('__code=503&__dynamic=true')), {
      code: 503,
      dynamic: true,
    });
    assert.deepEqual(readControls('dynamic', new URLSearchParams()), { dynamic: true });
    assert.deepEqual(readControls(undefined, new URLSearchParams('__example=dog')), { example: 'dog' });
    assert.deepEqual(readControls(undefined, new URLSearchParams()), {});
  });

  it('rejects bad values with a 400 problem naming them', () => {
    for (const [prefer, query] of [
      ['code=abc', ''],
      ['code=100', ''],
      ['code=600', ''],
      ['dynamic=yes', ''],
      ['', '__example='],
      ['', '__code=4290'],
    ]) {
      assert.throws(
        () => readControls(prefer, new URLSearchParams(query)),
        (error: Error & { status?: number }) => error.status === 400 && /code|dynamic|example/.test(error.message),
        `${prefer} ${query}`,
      );
    }
  });
});

describe('Prefer parsing cost', () => {
  it('is linear in the header: 100 KB of hostile input parse in well under the seconds a rescan takes', () => {
    // Each shape made the former regular expression rescan the rest of the header from every position.
    for (const hostile of [
      ' '.repeat(100_000),
      `a${' '.repeat(100_000)}b`,
      `x="${'\\"'.repeat(50_000)}`,
      'a=b;'.repeat(25_000),
      `${'='.repeat(100_000)}`,
    ]) {
      const started = performance.now();
      parsePrefer(hostile);
      const elapsed = performance.now() - started;
      // A rescan from every position is ~10^10 steps here (tens of seconds); the bound leaves room for a loaded CI.
      assert.ok(elapsed < 2_000, `${JSON.stringify(hostile.slice(0, 8))}…: ${elapsed} ms`);
    }
    assert.deepEqual(parsePrefer('  code=503 ,, x; p, example="a\\"b"; p=1'), [
      ['code', '503'],
      ['x', 'true'],
      ['example', 'a"b'],
    ]);
  });
});
