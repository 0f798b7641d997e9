import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerceValues, schemaTypes } from '../../src/server/rest/coerce.js';

describe('coercing wire strings by parameter schema', () => {
  it('types scalars, and leaves strings that do not fit', () => {
    assert.equal(coerceValues(['42'], { type: 'integer' }), 42);
    assert.equal(coerceValues(['4.5'], { type: 'integer' }), '4.5');
    assert.equal(
      coerceValues(['9007199254740993'], { type: 'integer' }),
      9007199254740992,
      'an int64 past 2^53 is an integer, read as JSON reads it',
    );
    assert.equal(coerceValues(['-0.5'], { type: 'number' }), -0.5);
    assert.equal(coerceValues([''], { type: 'number' }), '');
    assert.equal(coerceValues(['true'], { type: 'boolean' }), true);
    assert.equal(coerceValues(['yes'], { type: 'boolean' }), 'yes');
    assert.equal(coerceValues(['42'], { type: 'string' }), '42');
    assert.equal(coerceValues(['42'], undefined), '42');
    assert.equal(coerceValues(['null'], { type: ['integer', 'null'] }), null);
    assert.equal(coerceValues(['null'], { type: ['string', 'null'] }), 'null');
    assert.deepEqual(coerceValues(['{"a":1}'], { type: 'object' }), { a: 1 });
    assert.equal(coerceValues(['{"a":'], { type: 'object' }), '{"a":');
  });

  it('builds arrays from repeated keys, comma lists or JSON', () => {
    const ints = { type: 'array', items: { type: 'integer' } };
    assert.deepEqual(coerceValues(['1', '2'], ints), [1, 2]);
    assert.deepEqual(coerceValues(['1,2,x'], ints), [1, 2, 'x']);
    assert.deepEqual(coerceValues(['[3,4]'], ints), [3, 4]);
    assert.deepEqual(coerceValues([''], ints), []);
    // A single JSON object item keeps its commas.
    const objects = {
      type: 'array',
      items: { allOf: [{ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } }] },
    };
    assert.deepEqual(coerceValues(['{"a":1,"b":2}'], objects), [{ a: 1, b: 2 }]);
    // anyOf [array of objects, ""]: repeated keys are the array, its items typed by the array member.
    const stripeLike = {
      anyOf: [
        { type: 'array', items: { type: 'object', properties: { coupon: { type: 'string' } } } },
        { type: 'string', enum: [''] },
      ],
    };
    assert.deepEqual(coerceValues(['{"coupon":"A"}', '{"coupon":"B"}'], stripeLike), [
      { coupon: 'A' },
      { coupon: 'B' },
    ]);
    assert.equal(coerceValues([''], stripeLike), '');
  });

  it('reads types from type, implied keywords, combinators and enums', () => {
    assert.deepEqual([...schemaTypes({ properties: {} })], ['object']);
    assert.deepEqual([...schemaTypes({ items: {} })], ['array']);
    assert.deepEqual([...schemaTypes({ oneOf: [{ type: 'integer' }, { type: 'string' }] })].sort(), [
      'integer',
      'string',
    ]);
    assert.deepEqual([...schemaTypes({ enum: [1, 2] })], ['integer']);
    assert.deepEqual([...schemaTypes(true)], []);
  });
});
