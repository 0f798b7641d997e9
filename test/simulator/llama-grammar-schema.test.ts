import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema } from '../../src/library/tool.js';
import { grammarSchema } from '../../src/simulator/llama/grammar-schema.js';

const ANY = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

test('keywords the grammar cannot express are dropped, the ones it can are kept', () => {
  assert.deepEqual(
    grammarSchema({
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'integer', format: 'int64', minimum: 1 },
        email: { type: 'string', format: 'email', pattern: '^.+@.+$', maxLength: 64 },
        at: { type: 'string', format: 'date-time' },
        kind: { type: 'string', enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3, uniqueItems: true },
        'x-vendor': { const: 'v' },
      },
      'x-extension': true,
    }),
    {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        email: { type: 'string', maxLength: 64 },
        at: { type: 'string', format: 'date-time' },
        kind: { enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        'x-vendor': { const: 'v' },
      },
    },
  );
});

test('$refs are inlined, allOf merged, nullable and type lists become alternatives', () => {
  const schema = {
    $defs: { Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
    allOf: [{ $ref: '#/$defs/Base' }, { type: 'object', properties: { name: { type: 'string', nullable: true } } }],
  };
  assert.deepEqual(grammarSchema(schema), {
    type: 'object',
    properties: { name: { oneOf: [{ type: 'string' }, { type: 'null' }] }, id: { type: 'integer' } },
  });
  assert.deepEqual(grammarSchema({ type: ['string', 'null'] }), { type: ['string', 'null'] });
  assert.deepEqual(grammarSchema({ type: ['array', 'null'], items: { type: 'integer' } }), {
    oneOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }],
  });
  assert.deepEqual(grammarSchema({ anyOf: [{ type: 'integer' }, { type: 'string', format: 'uri' }] }), {
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  });
});

test('a recursive $ref ends in any JSON instead of looping', () => {
  const tree = {
    $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } } },
    $ref: '#/$defs/Node',
  };
  assert.deepEqual(grammarSchema(tree), { type: 'object', properties: { child: ANY } });
  assert.deepEqual(grammarSchema({ $ref: '#/$defs/Missing' }), ANY);
});

test('objects keep every required property and optional ones up to the cap; depth is capped', () => {
  const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'integer' }]));
  const out = grammarSchema({ type: 'object', required: ['p9', 'p8'], properties }, { maxProperties: 4 }) as {
    properties: object;
  };
  assert.deepEqual(Object.keys(out.properties), ['p0', 'p1', 'p8', 'p9']);

  let deep: JsonSchema = { type: 'string' };
  for (let i = 0; i < 10; i++) deep = { type: 'object', properties: { next: deep } };
  let node = grammarSchema(deep, { maxDepth: 3 }) as { properties?: { next: object } };
  let depth = 0;
  while (node.properties) {
    node = node.properties.next as typeof node;
    depth++;
  }
  assert.equal(depth, 3);
  assert.deepEqual(node, { type: ['string', 'number', 'boolean', 'null'] });
});

test(
  'maxStringLength caps strings the schema leaves unbounded; a declared maxLength, a longer minLength and ' +
    'formats win',
  () => {
    const schema = {
      type: 'object',
      properties: {
        free: { type: 'string' },
        short: { type: 'string', maxLength: 8 },
        long: { type: 'string', minLength: 300 },
        at: { type: 'string', format: 'date' },
      },
    };
    assert.deepEqual(grammarSchema(schema, { maxStringLength: 128 }), {
      type: 'object',
      properties: {
        free: { type: 'string', maxLength: 128 },
        short: { type: 'string', maxLength: 8 },
        long: { type: 'string', minLength: 300, maxLength: 300 },
        at: { type: 'string', format: 'date' },
      },
    });
    assert.deepEqual(grammarSchema({ type: 'string' }), { type: 'string' });
  },
);

test('schemas that allow anything become any JSON; maps keep their value schema', () => {
  assert.deepEqual(grammarSchema(true), ANY);
  assert.deepEqual(grammarSchema({}), ANY);
  assert.deepEqual(grammarSchema({ type: 'object' }), { type: 'object', additionalProperties: ANY });
  assert.deepEqual(grammarSchema({ type: 'object', additionalProperties: { type: 'number' }, maxProperties: 3 }), {
    type: 'object',
    additionalProperties: { type: 'number' },
    maxProperties: 3,
  });
  assert.deepEqual(grammarSchema({ type: 'array' }), { type: 'array', items: ANY });
  assert.deepEqual(grammarSchema({ enum: [{ a: 1 }] }), ANY, 'enum values the grammar cannot spell');
});
