import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isValidId } from '../../src/library/ids.js';
import { documentTools, listOperations, type ApiContext } from '../../src/library/openapi/operations.js';
import { pruneDocument } from '../../src/library/openapi/prune.js';
import { conversionStats, dialectOf } from '../../src/library/openapi/schema.js';
import { humanize, mergeDescription, plainText, toolName } from '../../src/library/openapi/text.js';
import type { Tool } from '../../src/library/tool.js';
import { schemasDir } from '../../src/paths.js';
import { createAjv } from '../../src/library/ajv.js';
import { petstoreApi, petstoreTools } from '../fixtures/tools.js';

type Doc = Record<string, unknown>;

function tools(document: Doc, apiId = 'shop.test'): Tool[] {
  const context: ApiContext = {
    document,
    dialect: dialectOf(document),
    apiId,
    title: 'Shop',
    category: 'ecommerce',
    stats: conversionStats(),
  };
  return documentTools(context);
}

const byId = (list: Tool[], id: string) =>
  list.find((t) => t.id === id) ?? assert.fail(`no tool ${id} in ${list.map((t) => t.id).join(', ')}`);

test('the petstore document converts to exactly the records the fixtures describe', () => {
  assert.deepEqual(tools(petstoreApi.document as Doc, 'petstore.test'), petstoreTools.slice(0, 4));
});

const shop: Doc = {
  openapi: '3.0.1',
  info: { title: 'Shop', version: '1' },
  servers: [
    {
      url: 'https://{region}.shop.test/v{version}',
      variables: { region: { default: 'eu' }, version: { default: '2' } },
    },
  ],
  tags: [{ name: 'misc', description: 'Odds and ends of the shop.' }],
  paths: {
    '/orders/{id}': {
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Order <b>id</b>' },
        { name: 'trace', in: 'header', schema: { type: 'string' } },
      ],
      put: {
        operationId: 'updateOrder',
        summary: 'Update an order.',
        description: 'Update an order. Only open orders can change.',
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'Content-Type', in: 'header', schema: { type: 'string' } },
          { name: 'authorization', in: 'header', schema: { type: 'string' } },
          { name: 'Accept', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
          { name: 'dry', in: 'query', schema: { type: 'boolean' }, example: true },
        ],
        requestBody: { $ref: '#/components/requestBodies/OrderBody' },
        responses: {
          '202': { $ref: '#/components/responses/Accepted' },
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
          },
          default: { description: 'error', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/orders': {
      post: {
        operationId: 'create_order',
        description: 'Creates an order from a cart.',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/Order' },
                  { type: 'object', properties: { note: { type: 'string' } } },
                ],
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'created',
            content: {
              'application/hal+json': {
                schema: { $ref: '#/components/schemas/Order' },
                examples: { small: { $ref: '#/components/examples/Small' }, big: { value: { id: 'o2', total: 99 } } },
              },
            },
          },
        },
      },
      get: {
        summary:
          'A summary far too long to be a name because it goes on and on about what listing the orders of a ' +
          'shop involves',
        parameters: [
          {
            name: 'filter',
            in: 'query',
            content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } } },
          },
        ],
        responses: {
          '2XX': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } },
                example: '[{"id": "o1", "total": 5}]',
              },
            },
          },
        },
      },
    },
    '/upload/{name}': {
      post: {
        tags: ['misc'],
        parameters: [
          { name: 'name', in: 'path', schema: { type: 'string' } },
          { name: 'name', in: 'query', schema: { type: 'string' } },
        ],
        requestBody: { required: true, description: 'The file', content: { 'application/octet-stream': {} } },
        responses: { '204': { description: 'stored' } },
      },
      patch: {
        operationId: 'tagUpload',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
        },
        responses: { default: { description: 'ok', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
      delete: {
        operationId: 'deleteUpload',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', properties: { name: { type: 'string' }, reason: { type: 'string' } } },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^o[0-9]+$' } } },
    requestBodies: {
      OrderBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
      },
    },
    responses: {
      Accepted: {
        description: 'accepted',
        content: { 'application/json': { schema: { type: 'object', properties: { queued: { type: 'boolean' } } } } },
      },
    },
    examples: { Small: { summary: 'small', value: { id: 'o1', total: 5 } } },
    schemas: {
      Order: {
        type: 'object',
        required: ['id', 'total'],
        properties: {
          id: { type: 'string', readOnly: true },
          total: { type: 'number' },
          trace: { type: 'string', nullable: true },
        },
      },
    },
  },
};

test('parameters of every location and the body merge into one object, bound to where they go', () => {
  const update = byId(tools(shop), 'shop_test__updateOrder');
  assert.deepEqual(update.parameters, {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^o[0-9]+$' },
      dry: { type: 'boolean', examples: [true] },
      trace: { type: 'string' },
      session: { type: 'string' },
      total: { type: 'number' },
      body_trace: { type: ['string', 'null'] },
    },
    required: ['id', 'total'],
  });
  assert.deepEqual(update.bindings, {
    id: { in: 'path', name: 'id' },
    dry: { in: 'query', name: 'dry' },
    trace: { in: 'header', name: 'trace' },
    session: { in: 'cookie', name: 'session' },
    total: { in: 'body', name: 'total' },
    body_trace: { in: 'body', name: 'trace' },
  });
});

test('the success response is the first 2xx: its status, JSON schema and examples', () => {
  const list = tools(shop);
  const update = byId(list, 'shop_test__updateOrder');
  assert.equal(update.response_status, undefined, '200 is the default status');
  assert.deepEqual(update.response_schema, {
    type: 'object',
    required: ['id', 'total'],
    properties: {
      id: { type: 'string', readOnly: true },
      total: { type: 'number' },
      trace: { type: ['string', 'null'] },
    },
  });

  const create = byId(list, 'shop_test__create_order');
  assert.equal(create.response_status, 201);
  assert.deepEqual(create.examples, [
    { name: 'small', status: 201, body: { id: 'o1', total: 5 } },
    { name: 'big', status: 201, body: { id: 'o2', total: 99 } },
  ]);
  // allOf bodies spread into their properties; a body that is not required makes none of them required.
  assert.deepEqual(Object.keys(create.parameters.properties), ['total', 'trace', 'note']);
  assert.equal(create.parameters.required, undefined);

  const listOrders = list.find((t) => t.origin.format === 'openapi' && t.origin.method === 'get')!;
  assert.equal(listOrders.response_status, undefined);
  assert.deepEqual(
    listOrders.examples,
    [{ status: 200, body: [{ id: 'o1', total: 5 }] }],
    'an example written as JSON text is the value it holds',
  );
  assert.deepEqual(listOrders.parameters.properties.filter, {
    type: 'object',
    properties: { status: { type: 'string' } },
  });

  const tag = byId(list, 'shop_test__tagUpload');
  assert.equal(tag.response_status, undefined);
  assert.equal(tag.response_schema, undefined, 'a text/plain response has no JSON schema');
});

test('bodies that are not JSON objects become one "body" property bound to the whole body', () => {
  const list = tools(shop);
  const upload = list.find(
    (t) => t.origin.format === 'openapi' && t.origin.method === 'post' && t.origin.path === '/upload/{name}',
  )!;
  assert.deepEqual(upload.parameters, {
    type: 'object',
    properties: {
      name: { type: 'string' },
      query_name: { type: 'string' },
      body: { type: 'string', description: 'The file' },
    },
    required: ['name', 'body'],
  });
  assert.deepEqual(upload.bindings, {
    name: { in: 'path', name: 'name' },
    query_name: { in: 'query', name: 'name' },
    body: { in: 'body', name: '' },
  });
  assert.equal(upload.response_status, 204);

  const tag = byId(list, 'shop_test__tagUpload');
  assert.deepEqual(tag.parameters.properties.body, { type: 'array', items: { type: 'string' } });
  assert.deepEqual(tag.parameters.required, ['name', 'body']);

  const remove = byId(list, 'shop_test__deleteUpload');
  assert.deepEqual(remove.bindings, { name: { in: 'path', name: 'name' }, body: { in: 'body', name: '' } });
  assert.deepEqual(remove.parameters.required, ['name'], 'an optional body is not required');
});

test('names, descriptions, ids and origins', () => {
  const list = tools(shop);
  const update = byId(list, 'shop_test__updateOrder');
  assert.equal(update.name, 'Update an order');
  assert.equal(update.description, 'Update an order. Only open orders can change.');
  assert.deepEqual(update.origin, {
    format: 'openapi',
    api_id: 'shop.test',
    method: 'put',
    path: '/orders/{id}',
    operation_id: 'updateOrder',
    server: 'https://eu.shop.test/v2',
  });

  const create = byId(list, 'shop_test__create_order');
  assert.equal(create.name, 'Create order');
  assert.equal(create.description, 'Creates an order from a cart.');

  const listOrders = list.find((t) => t.origin.format === 'openapi' && t.origin.method === 'get')!;
  assert.equal(listOrders.id, 'shop_test__get_orders');
  assert.equal(listOrders.name, 'GET /orders');
  assert.ok(listOrders.description.startsWith('A summary far too long'));

  const upload = list.find((t) => t.id === 'shop_test__post_upload_name')!;
  assert.equal(upload.description, 'POST /upload/{name} (Shop, misc). Odds and ends of the shop.');

  assert.ok(list.every((t) => isValidId(t.id) && t.category === 'ecommerce'));
  assert.deepEqual(
    tools(shop).map((t) => t.id),
    list.map((t) => t.id),
    'ids are deterministic',
  );
});

test('ids stay unique and within 64 characters when operationIds collide or run long', () => {
  const long = 'a'.repeat(80);
  const document: Doc = {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/a': { get: { operationId: 'same', responses: {} }, post: { operationId: 'same', responses: {} } },
      '/b': { get: { operationId: long, responses: {} } },
      '/c': { get: { operationId: long, responses: {} } },
    },
  };
  const ids = tools(document, 'x.test').map((t) => t.id);
  assert.equal(new Set(ids).size, 4);
  assert.ok(ids.every(isValidId), ids.join(', '));
  assert.deepEqual(
    tools(document, 'x.test').map((t) => t.id),
    ids,
  );
});

test('every converted tool is a valid tool record, and every schema compiles', () => {
  const validateTool = createAjv().compile(
    JSON.parse(readFileSync(join(schemasDir, 'tool.schema.json'), 'utf8')) as object,
  );
  for (const tool of [...tools(shop), ...petstoreTools]) {
    assert.ok(validateTool(tool), `${tool.id}: ${JSON.stringify(validateTool.errors)}`);
    createAjv().compile(tool.parameters);
    if (tool.response_schema !== undefined) createAjv().compile(tool.response_schema);
  }
  assert.equal(validateTool({ ...petstoreTools[0], id: 'has space' }), false);
});

test('a pruned document keeps the chosen operations and only the components they reach', () => {
  const pruned = pruneDocument(shop, new Set(['post /orders']));
  assert.deepEqual(Object.keys(pruned.paths as object), ['/orders']);
  assert.deepEqual(Object.keys((pruned.paths as Doc)['/orders'] as object), ['post']);
  assert.deepEqual(pruned.components, {
    schemas: { Order: (shop.components as { schemas: Doc }).schemas.Order },
    examples: { Small: { summary: 'small', value: { id: 'o1', total: 5 } } },
  });
  assert.equal(pruned.servers, shop.servers);
  assert.deepEqual(
    listOperations(pruned).map((o) => `${o.method} ${o.path}`),
    ['post /orders'],
  );
});

test('text helpers', () => {
  assert.equal(humanize('getUserByID'), 'Get user by ID');
  assert.equal(
    humanize('ApiManagementService_CheckNameAvailability'),
    'Api management service check name availability',
  );
  assert.equal(toolName('List pets.', 'listPets', 'get', '/pets'), 'List pets');
  assert.equal(toolName('', undefined, 'delete', '/pets/{id}'), 'DELETE /pets/{id}');
  assert.equal(mergeDescription('Get quotes for all symbols', 'Get quotes'), 'Get quotes for all symbols');
  assert.equal(mergeDescription('List pets', 'Returns pets. List pets. Paged.'), 'List pets. Returns pets. Paged.');
});

test('plainText drops the lines that only say "no value" and keeps such words in sentences', () => {
  // As oceandrivers.com, microsoft.com/graph-beta, trello.com, circuitsandbox.net and docker.com write them.
  const software = 'Get data from the weather display software';
  assert.equal(plainText(`${software}<br/>None`), software);
  assert.equal(plainText('Get stations in an event<br />None<br/>'), 'Get stations in an event');
  assert.equal(plainText('<p>Lists the boards.</p>\n<p>undefined</p>'), 'Lists the boards.');
  assert.equal(plainText('Deletes a card.\r\n  null  \r\nCannot be undone.'), 'Deletes a card. Cannot be undone.');
  for (const placeholder of ['None', 'undefined', 'null', 'n/a', 'N/A', 'TODO', ' None ']) {
    assert.equal(plainText(placeholder), '', placeholder);
  }
  assert.equal(plainText('Returns null when the pet is unknown.'), 'Returns null when the pet is unknown.');
  assert.equal(plainText('None needed<br>Set to None<br/>to clear it'), 'None needed Set to None to clear it');
  assert.equal(plainText('Accepts <pre>None</pre> or a list'), 'Accepts None or a list');
});

test('a placeholder description line does not reach the tool: its description, name and parameters', () => {
  const document: Doc = {
    openapi: '3.0.1',
    info: { title: 'Buoys', version: '1' },
    paths: {
      '/stations/{id}': {
        get: {
          operationId: 'getStation',
          summary: 'None',
          description: 'Get data from the weather display software<br/>None',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'None' }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const [tool] = tools(document, 'buoys.test');
  assert.equal(tool!.name, 'Get station');
  assert.equal(tool!.description, 'Get data from the weather display software');
  assert.equal((tool!.parameters.properties as Record<string, { description?: string }>).id!.description, undefined);
});

test('a large example on the response schema still becomes a tool example', () => {
  const body = { blob: 'z'.repeat(5000) };
  const document: Doc = {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/blob': {
        get: {
          operationId: 'blob',
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', example: body } } },
            },
          },
        },
      },
    },
  };
  const [tool] = tools(document, 'b.test');
  assert.deepEqual(tool!.examples, [{ status: 200, body }]);
  assert.deepEqual(tool!.response_schema, { type: 'object' });
});

test(
  'declared error responses are kept compact in the record: per status, 4XX/5XX and an error default, ' +
    'annotations dropped, large ones without a schema',
  () => {
    const apiError = {
      type: 'object',
      description: 'An error.',
      properties: {
        message: { type: 'string', description: 'What went wrong.' },
        description: { type: 'string', title: 'a member named like a keyword' },
      },
    };
    const document: Doc = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: {
        '/things/{id}': {
          get: {
            operationId: 'getThing',
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
              '404': { $ref: '#/components/responses/NotFound' },
              '410': { description: 'gone, no body' },
              '4xx': {
                description: 'other client errors',
                content: {
                  'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } },
                },
              },
              '5XX': {
                description: 'huge',
                content: {
                  'application/json': {
                    schema: { type: 'string', enum: Array.from({ length: 2000 }, (_, i) => `value_${i}`) },
                  },
                },
              },
              default: {
                description: 'error',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
              },
              '302': { description: 'a redirect is no error' },
            },
          },
        },
        // `default` is the success response here (no 2xx), and every other answer's too: errors included.
        '/ping': {
          get: {
            operationId: 'ping',
            responses: {
              default: { description: 'pong', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      },
      components: {
        schemas: { ApiError: apiError },
        responses: {
          NotFound: {
            description: 'nf',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
          },
        },
      },
    };
    const [thing, ping] = tools(document, 'e.test');
    const stripped = { type: 'object', properties: { message: { type: 'string' }, description: { type: 'string' } } };
    assert.deepEqual(thing!.error_responses, {
      '404': stripped,
      '410': null,
      '4XX': { type: 'object', properties: { title: { type: 'string' } } },
      '5XX': null,
      default: stripped,
    });
    assert.deepEqual(ping!.error_responses, { default: { type: 'object' } });
    const validateTool = createAjv().compile(
      JSON.parse(readFileSync(join(schemasDir, 'tool.schema.json'), 'utf8')) as object,
    );
    assert.ok(validateTool(thing), JSON.stringify(validateTool.errors));
  },
);
