import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { synthesize } from '../../src/simulator/synth/index.js';

const ajv = createAjv();

function tool(schema: JsonSchema): Tool {
  return {
    id: 'keywords',
    name: 'keywords',
    description: '',
    category: 'test',
    parameters: { type: 'object', properties: {} },
    response_schema: schema,
    examples: [],
    origin: { format: 'openai', name: 'keywords' },
  };
}

/** Bodies for `seeds` seeds, each asserted valid; returned for further checks. */
function bodies(schema: JsonSchema, seeds = 60): unknown[] {
  const validate = ajv.compile(typeof schema === 'boolean' ? {} : schema);
  const out: unknown[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const body = synthesize(tool(schema), {}, seed).body;
    assert.ok(validate(body), `seed ${seed}: ${JSON.stringify(body)} — ${JSON.stringify(validate.errors)}`);
    out.push(body);
  }
  return out;
}

const kinds = (values: unknown[]) =>
  new Set(values.map((value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value)));

test('type unions, null included, produce each member type', () => {
  assert.deepEqual(
    kinds(bodies({ type: ['string', 'integer', 'boolean'] }, 80)),
    new Set(['string', 'number', 'boolean']),
  );
  const nullable = bodies({ type: ['string', 'null'], minLength: 2 }, 120);
  assert.ok(nullable.includes(null) && nullable.some((value) => typeof value === 'string'));
});

test('enum and const', () => {
  const values = bodies({ enum: ['red', 'green', 7, null, { deep: [1] }] }, 80);
  assert.equal(new Set(values.map((value) => JSON.stringify(value))).size, 5);
  assert.deepEqual(bodies({ const: { a: [1, 'x'] } }, 3)[0], { a: [1, 'x'] });
  // enum values that contradict the rest of the schema are never picked
  assert.ok(bodies({ type: 'string', enum: ['a', 1, 'bbb'], minLength: 2 }, 20).every((value) => value === 'bbb'));
});

test(
  'object keywords: properties, required, additionalProperties, patternProperties, min/maxProperties, ' +
    'propertyNames',
  () => {
    bodies({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['b'],
      additionalProperties: false,
    });
    const maps = bodies({
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      propertyNames: { pattern: '^[a-z]{3,8}$' },
      minProperties: 2,
      maxProperties: 4,
    }) as Record<string, unknown>[];
    assert.ok(maps.every((map) => Object.keys(map).length >= 2));
    const patterned = bodies({
      type: 'object',
      patternProperties: { '^x-[a-z]+$': { type: 'string' }, '^n\\d+$': { type: 'number' } },
      additionalProperties: false,
      minProperties: 1,
    }) as Record<string, unknown>[];
    assert.ok(patterned.every((map) => Object.keys(map).length >= 1));
    bodies({ type: 'object', properties: { a: {}, b: {}, c: {}, d: {} }, maxProperties: 1 });
    bodies({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'undeclared'], minProperties: 4 });
  },
);

test('dependentRequired and dependentSchemas', () => {
  const values = bodies(
    {
      type: 'object',
      properties: { card: { type: 'string' }, billing: { type: 'string' }, other: { type: 'integer' } },
      dependentRequired: { card: ['billing'] },
    },
    80,
  ) as Record<string, unknown>[];
  assert.ok(values.some((value) => 'card' in value));
  bodies({
    type: 'object',
    required: ['kind'],
    properties: { kind: { type: 'string' } },
    dependentSchemas: { kind: { properties: { size: { type: 'integer', maximum: 3 } }, required: ['size'] } },
  });
  bodies({ type: 'object', properties: { kind: { type: 'string' } }, dependentSchemas: { kind: false } });
});

test('array keywords: items, prefixItems, min/maxItems, uniqueItems, contains', () => {
  bodies({ type: 'array', items: { type: 'string', format: 'email' }, minItems: 3, maxItems: 4 });
  bodies({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, minItems: 2 });
  const unique = bodies({ type: 'array', items: { enum: [1, 2, 3, 4] }, uniqueItems: true, minItems: 4 }) as number[][];
  assert.ok(unique.every((list) => list.length === 4));
  bodies({
    type: 'array',
    items: { type: 'integer', minimum: 0, maximum: 100 },
    contains: { minimum: 90 },
    minContains: 2,
  });
  bodies({
    type: 'array',
    items: { type: 'integer', minimum: 0, maximum: 5 },
    contains: { const: 5 },
    maxContains: 1,
    minItems: 3,
    maxItems: 4,
  });
  bodies({ type: 'array', items: { type: 'boolean' }, uniqueItems: true, minItems: 2, maxItems: 2 });
});

test('string keywords: lengths, patterns (anchored, open, alternation, lookahead), non-ASCII length', () => {
  bodies({ type: 'string', minLength: 30, maxLength: 31 });
  bodies({ type: 'string', maxLength: 0 });
  for (const pattern of [
    '^[A-Z]{3}-\\d{4}$',
    '^(?:red|green|blue)$',
    '^[a-z]',
    '\\d',
    '^(?=.*[0-9])[a-z0-9]{6,10}$',
    '^\\p{Lu}\\p{Ll}+$',
    '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
    '^\\+?[1-9]\\d{1,14}$',
  ]) {
    const values = bodies({ type: 'string', pattern, minLength: 2, maxLength: 40 }, 30) as string[];
    assert.ok(values.every((value) => new RegExp(pattern, 'u').test(value)));
  }
  // a pattern and a name that agree keep the realistic value
  const emails = bodies(
    { type: 'object', required: ['email'], properties: { email: { type: 'string', pattern: '^\\S+@\\S+$' } } },
    10,
  ) as { email: string }[];
  assert.ok(emails.every(({ email }) => /^[a-z]/.test(email)));
});

test('number keywords: bounds, exclusive bounds, multipleOf (also fractional), integer', () => {
  bodies({ type: 'integer', minimum: 10, maximum: 10 });
  bodies({ type: 'integer', exclusiveMinimum: 4, exclusiveMaximum: 6 });
  bodies({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.001 });
  bodies({ type: 'number', minimum: 1e15, maximum: 1e16 });
  bodies({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991, format: 'int64' });
  bodies({ type: 'number', multipleOf: 0.01, minimum: 0, maximum: 5 });
  bodies({ type: 'number', multipleOf: 0.1 });
  bodies({ type: 'integer', multipleOf: 7, minimum: 100, maximum: 120 });
  bodies({ type: 'number', allOf: [{ multipleOf: 4 }, { multipleOf: 6 }], maximum: 30, minimum: 1 });
  bodies({ type: 'integer', multipleOf: 0.5, minimum: 1, maximum: 3 });
});

test('allOf merges objects, including one closed by additionalProperties: false', () => {
  bodies({
    allOf: [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { properties: { b: { type: 'integer' } }, required: ['b'] },
      { properties: { a: { minLength: 5 } } },
    ],
  });
  const closed = bodies({
    allOf: [
      { type: 'object', properties: { a: { type: 'string' }, b: {} }, additionalProperties: false },
      { properties: { a: { maxLength: 3 }, c: { type: 'string' } } },
    ],
  }) as object[];
  assert.ok(closed.every((value) => !('c' in value)));
  bodies({ allOf: [{ type: ['string', 'integer'] }, { type: ['integer', 'null'] }] });
});

test('anyOf and oneOf: one branch taken; oneOf values match no other branch', () => {
  assert.deepEqual(
    kinds(bodies({ anyOf: [{ type: 'string' }, { type: 'integer' }] }, 60)),
    new Set(['string', 'number']),
  );
  bodies({ oneOf: [{ type: 'integer' }, { type: 'number' }] }, 100);
  bodies(
    {
      oneOf: [
        { type: 'string', maxLength: 5 },
        { type: 'string', minLength: 3 },
      ],
    },
    100,
  );
  const pets = bodies(
    {
      type: 'object',
      required: ['pet'],
      properties: {
        pet: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'cat' }, lives: { type: 'integer' } }, required: ['kind'] },
            { type: 'object', properties: { kind: { const: 'dog' }, bark: { type: 'string' } }, required: ['kind'] },
          ],
        },
      },
    },
    60,
  ) as { pet: { kind: string } }[];
  assert.deepEqual(new Set(pets.map(({ pet }) => pet.kind)), new Set(['cat', 'dog']));
});

test('not, if/then/else and boolean schemas', () => {
  const odd = bodies({ type: 'integer', minimum: 0, maximum: 100, not: { multipleOf: 2 } }, 60) as number[];
  assert.ok(odd.every((value) => value % 2 === 1));
  assert.ok(!kinds(bodies({ not: { type: ['null', 'string'] } }, 40)).has('string'));
  const addresses = bodies(
    {
      type: 'object',
      required: ['country'],
      properties: {
        country: { enum: ['US', 'FR'] },
        zip: { type: 'string', pattern: '^\\d{5}$' },
        postcode: { type: 'string' },
      },
      if: { properties: { country: { const: 'US' } } },
      then: { required: ['zip'] },
      else: { required: ['postcode'] },
    },
    60,
  ) as { country: string }[];
  assert.deepEqual(new Set(addresses.map(({ country }) => country)), new Set(['US', 'FR']));
  bodies({ type: 'object', required: ['a'], properties: { a: true, b: false } });
  bodies({ type: 'array', items: true, minItems: 2 });
});

test('patterns prone to catastrophic backtracking are still generated and checked (the call finishes)', {
  timeout: 60_000,
}, () => {
  // Natively, testing a non-matching string against this spec pattern takes minutes: it nests `*` in `*`.
  const url = '^(https?:\\/\\/)?([\\da-z\\.-]+)\\.([a-z\\.]{2,6})([\\/\\w \\.-]*)*\\/?$';
  const values = bodies(
    {
      type: 'object',
      required: ['avatar_url', 'code'],
      properties: {
        avatar_url: { type: 'string', pattern: url },
        code: { type: 'string', pattern: '^([a-zA-Z0-9]+\\s?)*$', minLength: 30 },
      },
    },
    20,
  ) as { avatar_url: string }[];
  assert.ok(values.every(({ avatar_url }) => avatar_url.startsWith('https://')));
  // RE2 caps repeat counts at 1000: an ARN pattern with {0,1023} still gets valid values.
  bodies(
    {
      type: 'string',
      pattern: '^arn:aws:[a-z0-9-]{1,63}:[a-z]{2}-[a-z]+-\\d:\\d{12}:[A-Za-z0-9/][A-Za-z0-9:_/+.-]{0,1023}$',
    },
    20,
  );
});
