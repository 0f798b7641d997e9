import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ImportError } from '../../src/library/importers/errors.js';
import { importOpenapi } from '../../src/library/importers/openapi.js';
import { LibraryStore } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { tempDir } from '../fixtures/tools.js';

const openapi30 = {
  openapi: '3.0.0',
  info: {
    title: 'Tree Service',
    version: '1',
    'x-providerName': 'trees.test',
    'x-serviceName': 'forest',
    'x-apisguru-categories': ['open_data'],
  },
  paths: {
    '/trees/{id}': {
      get: {
        operationId: 'getTree',
        summary: 'Get a tree',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } },
          },
        },
      },
    },
    '/trees': {
      post: {
        operationId: 'plantTree',
        summary: 'Plant a tree',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/Tree' },
                  { type: 'object', required: ['species'], properties: { species: { type: 'string' } } },
                ],
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'planted',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Tree: {
        type: 'object',
        required: ['id', 'height'],
        properties: {
          id: { type: 'integer', readOnly: true },
          height: { type: 'number', nullable: true },
          children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
        },
      },
    },
  },
};

const openapi31 = {
  openapi: '3.1.0',
  info: { title: 'Weather Now!', version: '2', description: 'Current weather and forecasts for any city.' },
  paths: {
    '/weather': {
      get: {
        operationId: 'current',
        parameters: [{ name: 'city', in: 'query', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'object', properties: { temp: { type: ['number', 'null'] } } } },
            },
          },
        },
      },
    },
  },
};

const swagger20 = {
  swagger: '2.0',
  info: { title: 'Old Pets', version: '1' },
  host: 'pets.test',
  basePath: '/v1',
  schemes: ['https'],
  produces: ['application/json'],
  paths: {
    '/pets': {
      post: {
        operationId: 'addPet',
        parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/Pet' } }],
        responses: {
          '200': {
            description: 'ok',
            schema: { $ref: '#/definitions/Pet' },
            examples: { 'application/json': { name: 'Rex' } },
          },
        },
      },
      get: {
        operationId: 'findPets',
        parameters: [{ name: 'tags', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'csv' }],
        responses: { '200': { description: 'ok', schema: { type: 'array', items: { $ref: '#/definitions/Pet' } } } },
      },
    },
  },
  definitions: {
    Pet: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, photo: { type: 'file' } } },
  },
};

function writeSources(): string {
  const dir = tempDir('toolenv-openapi-');
  mkdirSync(join(dir, 'nested', 'deeper'), { recursive: true });
  writeFileSync(join(dir, 'trees.json'), JSON.stringify(openapi30));
  writeFileSync(join(dir, 'nested', 'weather.yaml'), stringify(openapi31));
  writeFileSync(join(dir, 'nested', 'deeper', 'pets.yml'), stringify(swagger20));
  writeFileSync(join(dir, 'notes.txt'), 'not a document');
  return dir;
}

const tool = (tools: Tool[], id: string) =>
  tools.find((t) => t.id === id) ?? assert.fail(`no ${id} in ${tools.map((t) => t.id).join(', ')}`);

test('a folder of OpenAPI 3.0 JSON, 3.1 YAML and Swagger 2.0 YAML imports recursively, in sorted order', async () => {
  const batch = await importOpenapi(writeSources());
  // Depth first, entries sorted by name at each level: nested/deeper/ comes before nested/weather.yaml.
  assert.deepEqual(
    batch.apis.map((a) => a.api_id),
    ['old_pets', 'weather_now', 'trees.test:forest'],
  );
  assert.deepEqual(
    batch.tools.map((t) => t.id),
    [
      'old_pets__findPets',
      'old_pets__addPet',
      'weather_now__current',
      'trees_test_forest__getTree',
      'trees_test_forest__plantTree',
    ],
  );
  assert.deepEqual(
    batch.apis.map((a) => a.category),
    ['tools', 'location', 'open_data'],
  );
  assert.deepEqual(
    batch.apis.map((a) => a.provider),
    ['pets.test', 'weather_now', 'trees.test'],
  );
  assert.equal((batch.apis[2]!.document as { openapi: string }).openapi, '3.0.0');
  for (const t of batch.tools) {
    createAjv().compile(t.parameters);
    if (t.response_schema !== undefined) createAjv().compile(t.response_schema);
  }
});

test('3.0: recursion, nullable, readOnly and allOf bodies come out as JSON Schema', async () => {
  const { tools } = await importOpenapi(writeSources());
  const get = tool(tools, 'trees_test_forest__getTree');
  assert.deepEqual(get.response_schema, {
    type: 'object',
    required: ['id', 'height'],
    properties: {
      id: { type: 'integer', readOnly: true },
      height: { type: ['number', 'null'] },
      children: { type: 'array', items: { type: 'object', 'x-toolenv-cut': '#/components/schemas/Tree' } },
    },
  });
  const plant = tool(tools, 'trees_test_forest__plantTree');
  assert.deepEqual(Object.keys(plant.parameters.properties), ['height', 'children', 'species']);
  assert.deepEqual(plant.parameters.required, ['height', 'species'], 'readOnly id is neither offered nor required');
  assert.equal(plant.response_status, 201);
  const validate = createAjv().compile(get.response_schema!);
  assert.equal(validate({ id: 1, height: null, children: [{ id: 2 }] }), true);
  assert.equal(validate({ id: 1 }), false);
});

test('3.1 type arrays pass through; Swagger 2.0 bodies, files and examples are upgraded', async () => {
  const { tools } = await importOpenapi(writeSources());
  assert.deepEqual(tool(tools, 'weather_now__current').response_schema, {
    type: 'object',
    properties: { temp: { type: ['number', 'null'] } },
  });
  const add = tool(tools, 'old_pets__addPet');
  assert.deepEqual(add.parameters, {
    type: 'object',
    properties: { name: { type: 'string' }, photo: { type: 'string', format: 'binary' } },
    required: ['name'],
  });
  assert.deepEqual(add.examples, [{ name: 'response', status: 200, body: { name: 'Rex' } }]);
  assert.equal(add.origin.format === 'openapi' && add.origin.server, 'https://pets.test/v1');
  const find = tool(tools, 'old_pets__findPets');
  assert.deepEqual(find.parameters.properties.tags, { type: 'array', items: { type: 'string' } });
});

test('an imported batch writes into a library and reads back', async () => {
  const batch = await importOpenapi(writeSources());
  const dir = tempDir();
  const store = LibraryStore.openWritable(dir);
  store.write(batch);
  store.close();
  const library = LibraryStore.open(dir);
  assert.equal(library.count(), 5);
  assert.deepEqual(library.get('old_pets__findPets'), tool(batch.tools, 'old_pets__findPets'));
  assert.deepEqual(
    library.apiOperations('trees.test:forest').map((o) => o.id),
    ['trees_test_forest__getTree', 'trees_test_forest__plantTree'],
  );
  library.close();
});

test('broken files fail with an ImportError that names the file and the problem', async () => {
  const dir = tempDir('toolenv-broken-');
  const cases: [string, string, RegExp][] = [
    ['bad.json', '{"openapi": "3.0.0", ', /bad\.json: not valid JSON/],
    ['bad.yaml', 'openapi: [3.0\n  - x: : y', /bad\.yaml: not valid YAML/],
    ['plain.json', '{"name": "not openapi"}', /plain\.json: not an OpenAPI document/],
    ['list.yaml', '- 1\n- 2', /list\.yaml: not an OpenAPI document/],
    ['v2.json', '{"openapi": "2.5.0", "paths": {}}', /v2\.json: unsupported OpenAPI version "2\.5\.0"/],
    ['swagger1.json', '{"swagger": "1.2"}', /swagger1\.json: unsupported Swagger version "1\.2"/],
    ['paths.json', '{"openapi": "3.0.0", "paths": []}', /paths\.json: \/paths must be an object/],
    [
      'cycle.yaml',
      'openapi: 3.0.0\ncomponents:\n  schemas:\n    Node: &node\n      type: object\n      properties:\n' +
        '        next: *node\n',
      /cycle\.yaml: a YAML alias at \/components\/schemas\/Node\/properties\/next contains itself/,
    ],
  ];
  for (const [name, text, message] of cases) {
    const file = join(dir, name);
    writeFileSync(file, text);
    await assert.rejects(
      importOpenapi(file),
      (error: Error) => error instanceof ImportError && message.test(error.message) && error.message.includes(file),
      name,
    );
  }
  await assert.rejects(importOpenapi(join(dir, 'missing.json')), ImportError);
  // One broken file fails the whole folder: nothing half-imported.
  await assert.rejects(importOpenapi(dir), ImportError);
});

test('YAML anchors shared by several operations are fine', async () => {
  const file = join(tempDir('toolenv-anchor-'), 'anchors.yaml');
  writeFileSync(
    file,
    [
      'openapi: 3.0.3',
      'info: {title: Anchors, version: "1"}',
      'paths:',
      '  /a:',
      '    get:',
      '      operationId: a',
      '      responses: &ok',
      '        "200": {description: ok, content: {application/json: {schema: {type: integer}}}}',
      '  /b:',
      '    get:',
      '      operationId: b',
      '      responses: *ok',
    ].join('\n'),
  );
  const { tools } = await importOpenapi(file);
  assert.deepEqual(
    tools.map((t) => [t.id, t.response_schema]),
    [
      ['anchors__a', { type: 'integer' }],
      ['anchors__b', { type: 'integer' }],
    ],
  );
});
