import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindRefs, findRefs, parseRefPath, RefError, type CallOutput } from '../../src/protocol/references.js';

const outputs: Record<string, CallOutput> = {
  c1: {
    status: 200,
    body: {
      items: [
        { id: 41, name: 'Rex' },
        { id: 42, name: 'Tom' },
      ],
      'x-rate': 3,
      owner: { login: 'octo' },
    },
  },
  geo: { status: 200, body: [{ lat: 48.85, lon: 2.35 }], headers: { etag: 'abc' } },
  empty: { status: 200, body: { items: [] } },
  text: { status: 200, body: 'plain' },
};
const lookup = (id: string) => outputs[id];

test('reference paths are parsed into a call id and steps', () => {
  assert.deepEqual(parseRefPath('c1.body.items[0].id'), {
    text: 'c1.body.items[0].id',
    call: 'c1',
    steps: ['body', 'items', 0, 'id'],
  });
  assert.deepEqual(parseRefPath('geo.body[0].lat').steps, ['body', 0, 'lat']);
  assert.deepEqual(parseRefPath('c1.body["x-rate"]').steps, ['body', 'x-rate']);
  assert.deepEqual(parseRefPath('c1.body["a.b"]').steps, ['body', 'a.b']);
  assert.deepEqual(parseRefPath('geo.headers.etag').steps, ['headers', 'etag']);
  assert.deepEqual(parseRefPath('c1.status').steps, ['status']);
  assert.throws(() => parseRefPath('1c.body'), /starts with a call id/);
  assert.throws(() => parseRefPath('c1'), /names a part of c1's result: c1\.body…, c1\.status or c1\.headers/);
  assert.throws(
    () => parseRefPath('c1.items[0]'),
    /paths start at body, status or headers \(did you mean c1\.body\.items…\?\)/,
  );
  assert.throws(() => parseRefPath('c1.body.items[x]'), /cannot read the path at "\[x\]"/);
});

test('bound references: whole values keep their type, templates interpolate, arrays and nesting are walked', () => {
  const args = {
    petId: { $ref: 'c1.body.items[1].id' },
    where: { lat: { $ref: 'geo.body[0].lat' }, lon: '{{geo.body[0].lon}}' },
    greeting: 'Hello {{c1.body.items[0].name}} and {{ c1.body.owner.login }}!',
    list: [{ $ref: 'c1.body.items[0]' }, 'x'],
    raw: '{{c1.body.owner}}',
    inline: 'owner={{c1.body.owner}}',
    status: { $ref: 'c1.status' },
    etag: { $ref: 'geo.headers.etag' },
    untouched: { a: 1, b: [true, null] },
  };
  assert.deepEqual(bindRefs(args, lookup), {
    petId: 42,
    where: { lat: 48.85, lon: 2.35 },
    greeting: 'Hello Rex and octo!',
    list: [{ id: 41, name: 'Rex' }, 'x'],
    raw: { login: 'octo' },
    inline: 'owner={"login":"octo"}',
    status: 200,
    etag: 'abc',
    untouched: { a: 1, b: [true, null] },
  });
  assert.deepEqual(args.petId, { $ref: 'c1.body.items[1].id' }, 'the input is not changed');
});

test('a path that does not resolve is a clear error saying where it stops', () => {
  const fails = (ref: string, reason: RegExp) => {
    assert.throws(
      () => bindRefs({ v: { $ref: ref } }, lookup),
      (error: unknown) => error instanceof RefError && error.path === ref && reason.test(error.message),
      ref,
    );
  };
  fails(
    'c1.body.pets[0].id',
    /^c1\.body\.pets\[0\]\.id: c1\.body\.pets is missing \(c1\.body has items, x-rate, owner\)$/,
  );
  fails('c1.body.items[5].id', /c1\.body\.items has 2 items, no \[5\]/);
  fails('empty.body.items[0].id', /empty\.body\.items has 0 items, no \[0\]/);
  fails('c1.body.items.id', /c1\.body\.items is an array, not an object/);
  fails('c1.body.owner[0]', /c1\.body\.owner is an object, not an array/);
  fails('text.body.id', /text\.body is a string, not an object/);
  fails('nobody.body.id', /nobody has no result to read/);
});

test('unresolvable references can be left as written (the dependency-blind Parallel baseline sends them)', () => {
  const args = { a: { $ref: 'later.body.id' }, b: 'x {{later.body.name}}', c: '{{geo.body[0].lat}}' };
  assert.deepEqual(bindRefs(args, lookup, { leaveUnresolved: true }), {
    a: { $ref: 'later.body.id' },
    b: 'x {{later.body.name}}',
    c: 48.85,
  });
});

test('findRefs lists every reference and every malformed one', () => {
  const { refs, problems } = findRefs({
    a: { $ref: 'c1.body.id' },
    b: ['{{geo.body[0].lat}} {{c1.status}}'],
    c: { $ref: 'bad path' },
    d: { $ref: 'c1.body', extra: 1 },
  });
  assert.deepEqual(
    refs.map((r) => r.text),
    ['c1.body.id', 'geo.body[0].lat', 'c1.status'],
  );
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /bad path: cannot read the path at " path"/);
  assert.match(problems[1]!, /a reference is an object with "\$ref" alone/);
});
