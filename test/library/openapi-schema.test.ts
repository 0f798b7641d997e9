import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conversionStats, convertSchema, dialectOf, type ConvertOptions } from '../../src/library/openapi/schema.js';
import { createAjv } from '../../src/library/ajv.js';
import type { JsonSchema } from '../../src/library/tool.js';

const components = {
  schemas: {
    Pet: {
      type: 'object',
      required: ['id', 'name', 'secret'],
      properties: {
        id: { type: 'integer', readOnly: true },
        name: { type: 'string', example: 'Rex' },
        secret: { type: 'string', writeOnly: true },
        owner: { $ref: '#/components/schemas/Owner' },
        tag: { $ref: '#/components/schemas/Tag' },
      },
      discriminator: { propertyName: 'name' },
      xml: { name: 'pet' },
      externalDocs: { url: 'https://example.test' },
      'x-internal': true,
    },
    Owner: { type: 'object', nullable: true, properties: { name: { type: 'string' } } },
    Tag: { type: 'string', readOnly: true },
    Node: {
      type: 'object',
      properties: {
        value: { type: 'number' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      },
    },
    'a/b~c': { type: 'boolean' },
  },
};
const doc30 = { openapi: '3.0.3', components };
const opts = (usage: 'request' | 'response', extra: Partial<ConvertOptions> = {}): ConvertOptions => ({
  document: doc30,
  dialect: '3.0',
  usage,
  ...extra,
});

/** Compiles with the project's ajv (every converted schema must) and returns the validator. */
function compile(schema: JsonSchema) {
  return createAjv().compile(schema);
}

test('nullable adds "null" to type and enum, only where a type is declared', () => {
  const schema = convertSchema({ type: 'string', enum: ['a', 'b'], nullable: true }, opts('request'));
  assert.deepEqual(schema, { type: ['string', 'null'], enum: ['a', 'b', null] });
  const validate = compile(schema);
  assert.equal(validate(null), true);
  assert.equal(validate('a'), true);
  assert.equal(validate('c'), false);
  // OpenAPI 3.0.3: without a type in the same schema, nullable changes nothing...
  assert.deepEqual(convertSchema({ allOf: [{ type: 'integer' }], nullable: true }, opts('request')), {
    allOf: [{ type: 'integer' }],
  });
  // ...but beside a union documents mean "or null" (GitHub's milestone), so null joins the union.
  assert.deepEqual(
    convertSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true }, opts('request')),
    {
      oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }],
    },
  );
  assert.deepEqual(convertSchema({ anyOf: [{ type: 'string' }, { type: 'null' }], nullable: true }, opts('request')), {
    anyOf: [{ type: 'string' }, { type: 'null' }],
  });
  // 3.1 has no nullable keyword.
  assert.deepEqual(convertSchema({ type: 'string', nullable: true }, { ...opts('request'), dialect: '3.1' }), {
    type: 'string',
  });
});

test('type "null" beside a union of non-null members reads as "one of these, or null"', () => {
  const schema = convertSchema({ type: 'null', oneOf: [{ type: 'string' }, { type: 'number' }] }, opts('response'));
  assert.deepEqual(schema, { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] });
  const validate = compile(schema);
  for (const value of ['a', 1, null]) assert.equal(validate(value), true, JSON.stringify(value));
  assert.equal(validate(true), false);
  // A union that already admits null keeps its type as written.
  assert.deepEqual(convertSchema({ type: 'null', anyOf: [{ type: 'null' }, { type: 'string' }] }, opts('response')), {
    type: 'null',
    anyOf: [{ type: 'null' }, { type: 'string' }],
  });
});

test('example becomes examples, boolean exclusive bounds become numeric, OpenAPI-only keywords go', () => {
  const schema = convertSchema(
    {
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
      exclusiveMaximum: false,
      example: 5,
      xml: { name: 'n' },
      'x-extra': 1,
      externalDocs: {},
    },
    opts('request'),
  );
  assert.deepEqual(schema, { type: 'number', exclusiveMinimum: 0, maximum: 10, examples: [5] });
  const validate = compile(schema);
  assert.equal(validate(0), false);
  assert.equal(validate(10), true);
});

test('refs are inlined; readOnly leaves requests and writeOnly leaves responses, with their required entries', () => {
  const request = convertSchema({ $ref: '#/components/schemas/Pet' }, opts('request')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(request.properties as object), ['name', 'secret', 'owner']);
  assert.deepEqual(request.required, ['name', 'secret']);
  assert.equal(request.discriminator, undefined);
  assert.equal(request.xml, undefined);
  assert.equal(request['x-internal'], undefined);
  assert.deepEqual((request.properties as Record<string, unknown>).owner, {
    type: ['object', 'null'],
    properties: { name: { type: 'string' } },
  });
  assert.deepEqual((request.properties as Record<string, unknown>).name, { type: 'string', examples: ['Rex'] });

  const response = convertSchema({ $ref: '#/components/schemas/Pet' }, opts('response')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(response.properties as object), ['id', 'name', 'owner', 'tag']);
  assert.deepEqual(response.required, ['id', 'name']);
  assert.ok(!JSON.stringify(response).includes('$ref'));
  const validate = compile(response);
  assert.equal(validate({ id: 1, name: 'Rex', owner: null }), true);
  assert.equal(validate({ name: 'Rex' }), false);
});

test('pointer tokens are unescaped; external and dangling refs become {} and are counted', () => {
  const stats = conversionStats();
  assert.deepEqual(convertSchema({ $ref: '#/components/schemas/a~1b~0c' }, opts('request', { stats })), {
    type: 'boolean',
  });
  assert.deepEqual(convertSchema({ $ref: 'other.yaml#/Pet' }, opts('request', { stats })), {});
  assert.deepEqual(convertSchema({ $ref: '#/components/schemas/Missing' }, opts('request', { stats })), {});
  assert.equal(stats.unresolved_refs, 2);
  assert.equal(stats.schemas, 3);
});

test('a recursive schema is cut where its ref recurs, into a type-keeping stub naming its ref, and counted', () => {
  const stats = conversionStats();
  const schema = convertSchema({ $ref: '#/components/schemas/Node' }, opts('response', { stats }));
  assert.deepEqual(schema, {
    type: 'object',
    properties: {
      value: { type: 'number' },
      children: { type: 'array', items: { type: 'object', 'x-toolenv-cut': '#/components/schemas/Node' } },
    },
  });
  assert.equal(stats.recursive_refs, 1);
  const validate = compile(schema);
  assert.equal(validate({ value: 1, children: [{ value: 2, children: [{}] }] }), true);
  assert.equal(validate({ children: [1] }), false);
});

test('mutually recursive refs terminate too', () => {
  const document = {
    openapi: '3.0.0',
    components: {
      schemas: {
        A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
        B: { type: 'array', items: { $ref: '#/components/schemas/A' } },
      },
    },
  };
  const schema = convertSchema({ $ref: '#/components/schemas/A' }, { document, dialect: '3.0', usage: 'request' });
  assert.deepEqual(schema, { type: 'object', properties: { b: { type: 'array', items: { type: 'object' } } } });
});

test('nesting deeper than the depth limit becomes stubs', () => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 30; i++) deep = { type: 'object', description: `level ${i}`, properties: { next: deep } };
  const stats = conversionStats();
  const schema = convertSchema(deep, opts('request', { stats, limits: { maxDepth: 4, maxNodes: 1000 } }));
  let node = schema as Record<string, unknown>;
  let levels = 0;
  while ((node.properties as Record<string, unknown> | undefined)?.next) {
    node = (node.properties as Record<string, Record<string, unknown>>).next!;
    levels++;
  }
  // Levels 1–4 below the top keep their properties; the fifth is the stub.
  assert.equal(levels, 5);
  assert.deepEqual(node, { type: 'object', description: 'level 24' });
  assert.equal(stats.depth_cuts, 1);
  compile(schema);
});

test('a schema over the node budget is rebuilt shallower until it fits, never past the budget', () => {
  // A cloud-style model: 40 entity types, each referring to 12 others (12^depth nodes if fully inlined).
  const schemas: Record<string, unknown> = {};
  const related = (i: number) => Array.from({ length: 12 }, (_, k) => (i + k + 1) % 40);
  for (let i = 0; i < 40; i++) {
    const properties: Record<string, unknown> = { id: { type: 'string' } };
    for (const j of related(i)) properties[`e${j}`] = { $ref: `#/components/schemas/E${j}` };
    schemas[`E${i}`] = { type: 'object', properties };
  }
  const document = { openapi: '3.0.0', components: { schemas } };
  const stats = conversionStats();
  const schema = convertSchema(
    { $ref: '#/components/schemas/E0' },
    { document, dialect: '3.0', usage: 'response', stats, limits: { maxDepth: 12, maxNodes: 500 } },
  );
  let objects = 0;
  JSON.stringify(schema, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value) && ('type' in value || 'properties' in value))
      objects++;
    return value;
  });
  assert.ok(objects <= 500, `${objects} schema objects`);
  assert.equal(stats.shrunk_schemas, 1);
  assert.deepEqual((schema as { properties: Record<string, unknown> }).properties.e1, {
    type: 'object',
    properties: Object.fromEntries([
      ['id', { type: 'string' }],
      ...related(1).map((j) => [`e${j}`, { type: 'object', 'x-toolenv-cut': `#/components/schemas/E${j}` }]),
    ]),
  });
  compile(schema);
});

test('a schema too wide for the budget even at depth 1 is cut, and the cut counted', () => {
  const properties = Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: 'object', properties: { q: { type: 'string' } } }]),
  );
  const stats = conversionStats();
  const schema = convertSchema(
    { type: 'object', properties },
    opts('request', { stats, limits: { maxDepth: 12, maxNodes: 20 } }),
  ) as { properties: Record<string, unknown> };
  assert.equal(Object.keys(schema.properties).length, 50);
  assert.deepEqual(schema.properties.p49, { type: 'object' });
  assert.ok(stats.budget_cuts > 0);
  compile(schema);
});

test('a union cut inside its members keeps them apart by their enums and only widens: oneOf becomes anyOf', () => {
  // OpenAI's Responses `tools`: members told apart by `type` alone, in a request schema too big to keep whole.
  const member = (type: string, required: string[]) => ({
    type: 'object',
    required: ['type', ...required],
    properties: {
      type: { type: 'string', enum: [type] },
      ...Object.fromEntries(required.map((name) => [name, { type: 'object', properties: { x: { type: 'string' } } }])),
    },
  });
  const union = { oneOf: [member('function', ['name']), member('file_search', []), member('computer', [])] };
  const stats = conversionStats();
  const schema = convertSchema(union, opts('request', { stats, limits: { maxDepth: 1, maxNodes: 300 } }));
  assert.ok(stats.depth_cuts > 0);
  const members = (schema as { anyOf: { properties: { type: unknown } }[] }).anyOf;
  assert.equal((schema as { oneOf?: unknown }).oneOf, undefined);
  assert.deepEqual(
    members.map((m) => m.properties.type),
    ['function', 'file_search', 'computer'].map((type) => ({ type: 'string', enum: [type] })),
  );
  const validate = compile(schema);
  // The cut `name` object admits anything; only the function member takes a `function`, only the computer one a
  // `computer`, and an unknown type none.
  assert.equal(validate({ type: 'function', name: { x: 'f' } }), true);
  assert.equal(validate({ type: 'computer' }), true);
  assert.equal(validate({ type: 'shell' }), false);
});

test('a union no cut reached stays oneOf', () => {
  const union = { oneOf: [{ type: 'string', enum: ['a'] }, { type: 'integer' }] };
  assert.deepEqual(convertSchema(union, opts('request')), union);
});

test('array without items gets items {}; a tuple items list becomes prefixItems', () => {
  assert.deepEqual(convertSchema({ type: 'array' }, opts('request')), { type: 'array', items: {} });
  assert.deepEqual(convertSchema({ type: 'array', nullable: true }, opts('request')), {
    type: ['array', 'null'],
    items: {},
  });
  assert.deepEqual(
    convertSchema({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }] }, opts('request')),
    {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
    },
  );
});

test('values JSON Schema forbids are dropped (and counted) so that every schema compiles', () => {
  const stats = conversionStats();
  const schema = convertSchema(
    {
      type: 'object',
      required: ['a', 'a', 3],
      properties: {
        a: { type: 'file' },
        b: { type: 'string', pattern: '^\\_[a-z]+$' },
        c: { type: 'integer', minimum: '1', maxLength: -1, multipleOf: 0 },
        d: { type: 'widget', format: 'custom-format' },
        e: { type: 'string', required: true },
        f: 'not a schema',
      },
      patternProperties: { '(': { type: 'string' }, '^x-': { type: 'string' } },
      $id: 'https://example.test/pet',
      $schema: 'http://json-schema.org/draft-04/schema#',
      definitions: { unused: {} },
    },
    opts('request', { stats }),
  );
  assert.deepEqual(schema, {
    type: 'object',
    required: ['a', 'e'],
    properties: {
      a: { type: 'string' },
      b: { type: 'string' },
      c: { type: 'integer', minimum: 1 },
      d: { format: 'custom-format' },
      e: { type: 'string' },
      f: {},
    },
    patternProperties: { '^x-': { type: 'string' } },
  });
  assert.equal(stats.dropped_keywords, 6);
  compile(schema);
});

test(
  'OpenAPI 3.1 schemas are kept as 2020-12, refs still inlined, ' + 'constraining ref siblings applied with allOf',
  () => {
    const document = {
      openapi: '3.1.0',
      components: {
        schemas: { Name: { type: ['string', 'null'], minLength: 1 }, Id: { type: 'integer', exclusiveMinimum: 0 } },
      },
    };
    assert.equal(dialectOf(document), '3.1');
    assert.equal(dialectOf(doc30), '3.0');
    const schema = convertSchema(
      {
        type: 'object',
        properties: {
          name: { $ref: '#/components/schemas/Name', description: 'The name' },
          id: { $ref: '#/components/schemas/Id', maximum: 9 },
          any: true,
          tags: { type: 'array', prefixItems: [{ const: 'a' }], items: false },
        },
      },
      { document, dialect: '3.1', usage: 'request' },
    );
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        name: { type: ['string', 'null'], minLength: 1, description: 'The name' },
        id: { allOf: [{ type: 'integer', exclusiveMinimum: 0 }], maximum: 9 },
        any: true,
        tags: { type: 'array', prefixItems: [{ const: 'a' }], items: false },
      },
    });
    const validate = compile(schema);
    assert.equal(validate({ name: null, id: 5, tags: ['a'] }), true);
    assert.equal(validate({ id: 10 }), false);
    assert.equal(validate({ id: 0 }), false);
    assert.equal(validate({ tags: ['a', 'b'] }), false);
  },
);

test('very long descriptions inside schemas are shortened', () => {
  const schema = convertSchema(
    { type: 'string', description: `![logo](data:image/png;base64,${'A'.repeat(50_000)}) ${'word '.repeat(400)}` },
    opts('request'),
  ) as { description: string };
  assert.ok(schema.description.length <= 1000);
  assert.ok(schema.description.startsWith('word word'));
});

test('examples inside schemas: at most three, each small', () => {
  const schema = convertSchema(
    { type: 'object', examples: [{ a: 1 }, { b: 'x'.repeat(2000) }, { c: 2 }, { d: 3 }, { e: 4 }] },
    { ...opts('response'), dialect: '3.1' },
  );
  assert.deepEqual(schema, { type: 'object', examples: [{ a: 1 }, { c: 2 }, { d: 3 }] });
  assert.deepEqual(convertSchema({ type: 'string', example: 'y'.repeat(2000) }, opts('request')), { type: 'string' });
});
