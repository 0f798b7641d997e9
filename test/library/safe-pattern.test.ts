import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linearNatively } from '../../src/library/pattern-screen.js';
import { SafePattern, withoutLookarounds } from '../../src/library/safe-pattern.js';

/** Patterns of the default library that safe-regex2 passes and that backtrack polynomially (cubic and worse). */
const POLYNOMIAL = [
  '^[0-9a-zA-Z]*?[a-zA-Z]+[0-9a-zA-Z]*$',
  '^[a-z0-9]+[a-z0-9-\\.]+[a-z0-9]+$',
  '^[\\x20-\\x7E]*[\\x21-\\x7E]+[\\x20-\\x7E]*$',
];

function millis(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

test(
  'polynomially backtracking patterns run on the linear engine: a hostile 3,000-character value is refused at ' +
    'once',
  () => {
    for (const source of POLYNOMIAL) {
      const pattern = new SafePattern(source);
      assert.equal(pattern.engine, 'linear', source);
      // Natively, the first took 8 s on this value.
      const elapsed = millis(() => assert.equal(pattern.test(`${'a'.repeat(3000)}\u0000`), false));
      assert.ok(elapsed < 1000, `${source}: ${elapsed} ms`);
      assert.equal(pattern.test('abc123'), true, source);
    }
  },
);

test('the screen passes only patterns linear by construction on a backtracking engine', () => {
  for (const source of [
    '^[a-zA-Z0-9_-]{1,64}$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^arn:aws:iam::\\d{12}:role/[\\w+=,.@-]+$',
    '^(https?://)?[a-z]+$',
    '^.*$',
  ]) {
    assert.equal(linearNatively(source), true, source);
    assert.equal(new SafePattern(source).engine, 'native', source);
  }
  const refused = [
    ...POLYNOMIAL,
    '[a-z]+x', // unanchored: one attempt per position
    '^(a|a)*$', // a repeated group
    '^(\\w+\\.){3}$', // an unbounded repetition repeated: cubic
    '^a|b+$', // top-level alternation: the second branch is unanchored
    '^(?!-)[a-z]+$', // look-around
    '^(.)\\1$', // back-reference
    '^a?b?c?d?e?f?g?[a-z]+$', // 2^7 combinations of choices
  ];
  for (const source of refused) assert.equal(linearNatively(source), false, source);
});

test('large bounds are read as unbounded on the linear engine: a superset, in linear time', () => {
  const pattern = new SafePattern("[a-zA-Z0-9-_.!*'()/]{1,1024}$");
  assert.equal(pattern.engine, 'linear');
  const elapsed = millis(() => assert.equal(pattern.test(`${'a'.repeat(3000)}\u0000`), false));
  assert.ok(elapsed < 1000, `${elapsed} ms`);
  assert.equal(pattern.test('a'.repeat(2000)), true);
});

test('patterns RE2 cannot read are exact on short values and a look-around-free superset on long ones', () => {
  const pattern = new SafePattern('^(?!\\s)(.*)(\\S)$');
  assert.equal(pattern.engine, 'bounded');
  assert.equal(pattern.test(' x'), false);
  assert.equal(pattern.test('a fine description'), true);
  // Longer than the exact bound: a valid value is accepted, not refused as before.
  assert.equal(pattern.test('a description well over twenty characters long'), true);
  const hostile = new SafePattern('^[a-zA-Z0-9]((?![_-]{2,})[a-zA-Z0-9-_])+[a-zA-Z0-9]$');
  const elapsed = millis(() => hostile.test(`${'a'.repeat(3000)}\u0000`));
  assert.ok(elapsed < 1000, `${elapsed} ms`);
});

test('look-arounds are removed whole, classes and escapes inside them included', () => {
  assert.equal(withoutLookarounds('^(?!a[)(]\\))b(?<=x)c$'), '^bc$');
  assert.equal(withoutLookarounds('^[(?=]x$'), '^[(?=]x$');
  assert.equal(withoutLookarounds('(?=^.{3,63}$)(^[a-z]+$)'), '(^[a-z]+$)');
});
