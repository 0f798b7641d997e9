import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toHttpRequest } from '../../src/library/http-request.js';
import { importOpenapi } from '../../src/library/importers/openapi.js';
import type { ApiRecord, HttpMethod, Tool } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreApi, petstoreTools, tempDir } from '../fixtures/tools.js';
import { expectProblem, startTestServer } from './helpers.js';

const echoed = async (response: Response) => ((await response.json()) as { args: Record<string, unknown> }).args;

describe('REST surface: petstore', () => {
  let server: RunningServer;
  let base: string;
  before(async () => {
    server = await startTestServer();
    base = `${server.url}/apis/petstore.test`;
  });
  after(() => server.close());

  it('rebuilds query arguments with their schema types', async () => {
    const response = await fetch(`${base}/pets?limit=5&unknown=1`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-toolenv-source'), 'synth');
    assert.deepEqual(await response.json(), { tool: 'petstore_test__listPets', args: { limit: 5 } });
  });

  it('rebuilds path and header arguments, routed by path template', async () => {
    const response = await fetch(`${base}/pets/7`, { headers: { 'x-request-id': 'req-1' } });
    assert.deepEqual(await response.json(), {
      tool: 'petstore_test__getPetById',
      args: { petId: 7, 'X-Request-Id': 'req-1' },
    });
  });

  it('rebuilds body arguments from JSON and from a form', async () => {
    const json = await fetch(`${base}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', status: 'sold', extra: 1 }),
    });
    assert.equal(json.status, 201);
    assert.deepEqual(await echoed(json), { name: 'Rex', status: 'sold' });
    const form = await fetch(`${base}/pets`, { method: 'POST', body: new URLSearchParams({ name: 'Tom' }) });
    assert.equal(form.status, 201);
    assert.deepEqual(await echoed(form), { name: 'Tom' });
    const multipart = new FormData();
    multipart.set('name', 'Kit');
    assert.deepEqual(await echoed(await fetch(`${base}/pets`, { method: 'POST', body: multipart })), { name: 'Kit' });
  });

  it('answers a 204 without a body, with the source header', async () => {
    const response = await fetch(`${base}/pets/3`, { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('x-toolenv-source'), 'synth');
    assert.equal(await response.text(), '');
  });

  it('round-trips every petstore tool through toHttpRequest', async () => {
    const cases: [Tool, Record<string, unknown>][] = [
      [petstoreTools[0]!, { limit: 12 }],
      [petstoreTools[1]!, { name: 'Rex', status: 'pending' }],
      [petstoreTools[2]!, { petId: 42, 'X-Request-Id': 'abc' }],
    ];
    for (const [tool, args] of cases) {
      const request = toHttpRequest(tool, args)!;
      const response = await fetch(`${base}${request.url}`, {
        method: request.method,
        headers: { ...request.headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
      assert.deepEqual(await response.json(), { tool: tool.id, args }, tool.id);
    }
  });

  it('lets the simulator reject arguments that do not fit (400 problem)', async () => {
    const problem = await expectProblem(await fetch(`${base}/pets/abc`), 400);
    assert.match(JSON.stringify(problem), /petId/);
    await expectProblem(
      await fetch(`${base}/pets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' }),
      400,
    );
    await expectProblem(
      await fetch(`${base}/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":',
      }),
      400,
    );
  });

  it('404 for a path with no operation, 405 with Allow for a wrong method, 204 with Allow for OPTIONS', async () => {
    await expectProblem(await fetch(`${base}/owners`), 404);
    await expectProblem(await fetch(`${base}/pets/1/toys`), 404);
    const wrong = await fetch(`${base}/pets/1`, { method: 'PUT' });
    const problem = await expectProblem(wrong, 405);
    assert.equal(wrong.headers.get('allow'), 'DELETE, GET, HEAD');
    assert.deepEqual(problem.allow, ['DELETE', 'GET', 'HEAD']);
    const options = await fetch(`${base}/pets`, { method: 'OPTIONS' });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
  });

  it('HEAD answers like GET without a body', async () => {
    const response = await fetch(`${base}/pets/99`, { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-toolenv-source'), 'synth');
    assert.equal(await response.text(), '');
    const get = await fetch(`${base}/pets/99`);
    assert.equal(get.headers.get('x-toolenv-source'), 'cache');
  });

  it('a trailing slash reaches the same operation', async () => {
    assert.deepEqual(await (await fetch(`${base}/pets/?limit=3`)).json(), {
      tool: 'petstore_test__listPets',
      args: { limit: 3 },
    });
  });

  it('takes Prism-style controls from Prefer or __ query parameters, which never become arguments', async () => {
    const limited = await fetch(`${base}/pets?limit=2`, { headers: { prefer: 'code=429' } });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('x-toolenv-error'), 'rate_limit');
    const viaQuery = await fetch(`${base}/pets?limit=2&__code=503`);
    assert.equal(viaQuery.status, 503);
    assert.equal(viaQuery.headers.get('x-toolenv-error'), 'network');
    const dynamic = await fetch(`${base}/pets?limit=2&__dynamic=true`);
    assert.equal(dynamic.headers.get('x-toolenv-source'), 'synth');
    assert.deepEqual(await echoed(dynamic), { limit: 2 });
    await expectProblem(await fetch(`${base}/pets?__code=abc`), 400);
  });

  it('serves the API document with servers pointing here', async () => {
    const response = await fetch(`${base}/openapi.json`);
    assert.equal(response.status, 200);
    const document = (await response.json()) as {
      servers: { url: string }[];
      paths: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(
      document.servers.map((s) => s.url),
      [base],
    );
    assert.deepEqual(Object.keys(document.paths), ['/pets', '/pets/{petId}']);
    assert.deepEqual(
      document.paths['/pets/{petId}'],
      (petstoreApi.document as { paths: Record<string, unknown> }).paths['/pets/{petId}'],
    );
  });

  it('404 for an unknown API', async () => {
    const problem = await expectProblem(await fetch(`${server.url}/apis/nowhere.test/pets`), 404);
    assert.match(String(problem.detail), /nowhere/);
    await expectProblem(await fetch(`${server.url}/apis/nowhere.test/openapi.json`), 404);
  });
});

describe('REST surface: a library holding part of an API', () => {
  let server: RunningServer;
  before(async () => {
    // The library holds getPetById and addPet only: the served document must not offer the other two operations.
    server = await startTestServer({ tools: [petstoreTools[1]!, petstoreTools[2]!], apis: [petstoreApi] });
  });
  after(() => server.close());

  it('filters paths and methods to the operations present', async () => {
    const document = (await (await fetch(`${server.url}/apis/petstore.test/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(Object.keys(document.paths), ['/pets', '/pets/{petId}']);
    assert.deepEqual(Object.keys(document.paths['/pets']!), ['post']);
    assert.deepEqual(Object.keys(document.paths['/pets/{petId}']!), ['get']);
  });

  it('405 for the operations left out', async () => {
    const response = await fetch(`${server.url}/apis/petstore.test/pets/1`, { method: 'DELETE' });
    await expectProblem(response, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD');
  });
});

const tool = (apiId: string, id: string, method: HttpMethod, path: string, extra: Partial<Tool> = {}): Tool => ({
  id,
  name: id,
  description: id,
  category: 'test',
  parameters: { type: 'object', properties: {} },
  bindings: {},
  examples: [],
  origin: { format: 'openapi', api_id: apiId, method, path, operation_id: id, server: null },
  ...extra,
});
const api = (api_id: string, paths: Record<string, unknown> = {}): ApiRecord => ({
  api_id,
  title: api_id,
  provider: api_id,
  category: 'test',
  format: 'openapi',
  document: { openapi: '3.0.0', info: { title: api_id, version: '1' }, servers: [{ url: `https://${api_id}` }], paths },
});

describe('REST surface: api_ids with slashes, path specificity, typed parameters', () => {
  let server: RunningServer;
  before(async () => {
    const props = {
      type: 'object' as const,
      properties: {
        owner: { type: 'string' },
        ids: { type: 'array', items: { type: 'integer' } },
        archived: { type: 'boolean' },
        score: { type: 'number' },
        filter: { type: 'object', properties: { min: { type: 'integer' }, name: { type: 'string' } } },
        session: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        name: { type: 'string' },
        ext: { type: 'string' },
      },
    };
    server = await startTestServer({
      apis: [api('example.com'), api('example.com/shop'), api('toolbench.test')],
      tools: [
        tool('example.com', 'root_items', 'get', '/shop/items'),
        tool('example.com/shop', 'shop_items', 'get', '/items', {
          parameters: props,
          bindings: {
            ids: { in: 'query', name: 'ids' },
            archived: { in: 'query', name: 'archived' },
            score: { in: 'query', name: 'score' },
            filter: { in: 'query', name: 'filter' },
            session: { in: 'cookie', name: 'sid' },
            tags: { in: 'header', name: 'X-Tags' },
          },
        }),
        tool('example.com/shop', 'shop_user', 'get', '/users/{owner}', {
          parameters: props,
          bindings: { owner: { in: 'path', name: 'owner' } },
        }),
        tool('example.com/shop', 'shop_me', 'get', '/users/me'),
        tool('example.com/shop', 'shop_file', 'get', '/files/{name}.{ext}', {
          parameters: props,
          bindings: { name: { in: 'path', name: 'name' }, ext: { in: 'path', name: 'ext' } },
        }),
        tool('example.com/shop', 'shop_replace', 'put', '/items', {
          parameters: { type: 'object', properties: { items: { type: 'array' } } },
          bindings: { items: { in: 'body', name: '' } },
        }),
      ],
    });
  });
  after(() => server.close());

  const get = async (path: string, init?: RequestInit) =>
    (await fetch(`${server.url}/apis/${path}`, init)).json() as Promise<{ tool: string; args: unknown }>;

  it('routes by the longest known api_id prefix', async () => {
    assert.equal((await get('example.com/shop/items')).tool, 'shop_items');
    // example.com/shop/shop/items would be shop's /shop/items, which does not exist: the longest prefix decides.
    await expectProblem(await fetch(`${server.url}/apis/example.com/shop/shop/items`), 404);
    const apis = (await (await fetch(`${server.url}/apis`)).json()) as { apis: { api_id: string }[] };
    assert.deepEqual(
      apis.apis.map((a) => a.api_id),
      ['example.com', 'example.com/shop', 'toolbench.test'],
    );
  });

  it('serves the document of a slashed api_id with its own base URL', async () => {
    const document = (await (await fetch(`${server.url}/apis/example.com/shop/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    assert.deepEqual(
      document.servers.map((s) => s.url),
      [`${server.url}/apis/example.com/shop`],
    );
  });

  it('an encoded slash never joins api_id segments', async () => {
    await expectProblem(await fetch(`${server.url}/apis/example.com%2Fshop/items`), 404);
  });

  it('prefers a concrete path over a template', async () => {
    assert.equal((await get('example.com/shop/users/me')).tool, 'shop_me');
    assert.deepEqual(await get('example.com/shop/users/ann%C3%A9e'), { tool: 'shop_user', args: { owner: 'année' } });
    assert.deepEqual(await get('example.com/shop/users/a%2Fb'), { tool: 'shop_user', args: { owner: 'a/b' } });
  });

  it('matches templates with text around parameters', async () => {
    assert.deepEqual(await get('example.com/shop/files/report.final.pdf'), {
      tool: 'shop_file',
      args: { name: 'report.final', ext: 'pdf' },
    });
  });

  it('coerces arrays, booleans, numbers, deepObject, cookies and comma-separated headers', async () => {
    const repeated = await get(
      'example.com/shop/items?ids=1&ids=2&archived=true&score=2.5&filter[min]=3&filter[name]=x',
      {
        headers: { cookie: 'sid=s%201; other=2', 'x-tags': 'a,b' },
      },
    );
    assert.deepEqual(repeated.args, {
      ids: [1, 2],
      archived: true,
      score: 2.5,
      filter: { min: 3, name: 'x' },
      session: 's 1',
      tags: ['a', 'b'],
    });
    assert.deepEqual((await get('example.com/shop/items?ids=4,5,6&archived=false')).args, {
      ids: [4, 5, 6],
      archived: false,
    });
    assert.deepEqual((await get('example.com/shop/items?ids=[7,8]&filter={"min":1}')).args, {
      ids: [7, 8],
      filter: { min: 1 },
    });
  });

  it('binds the whole body to one argument', async () => {
    const response = await fetch(`${server.url}/apis/example.com/shop/items`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '[{"a":1}]',
    });
    assert.deepEqual(await response.json(), { tool: 'shop_replace', args: { items: [{ a: 1 }] } });
  });

  it('an API without REST operations is 404 with a pointer to /v1', async () => {
    const problem = await expectProblem(await fetch(`${server.url}/apis/toolbench.test/anything`), 404);
    assert.match(String(problem.detail), /\/v1\/tools/);
  });
});

describe('REST surface: documents imported through the OpenAPI importer', () => {
  let server: RunningServer;
  const apiId = 'amazonaws.com:demoqueue';
  before(async () => {
    const dir = tempDir('toolenv-openapi-');
    writeFileSync(join(dir, 'queue.json'), JSON.stringify(awsStyleDocument));
    writeFileSync(join(dir, 'issues.yaml'), issuesDocument);
    const batch = await importOpenapi(dir);
    server = await startTestServer({ tools: batch.tools, apis: batch.apis });
  });
  after(() => server.close());

  it('tells operations sharing a path apart by the X-Amz-Target header', async () => {
    const send = await fetch(`${server.url}/apis/${apiId}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DemoQueue.SendMessage' },
      body: JSON.stringify({ QueueUrl: 'q1', MessageBody: 'hi', DelaySeconds: 5 }),
    });
    const body = (await send.json()) as { tool: string; args: unknown };
    assert.equal(body.tool, 'amazonaws_com_demoqueue__SendMessage');
    assert.deepEqual(body.args, {
      'X-Amz-Target': 'DemoQueue.SendMessage',
      QueueUrl: 'q1',
      MessageBody: 'hi',
      DelaySeconds: 5,
    });
    const list = await fetch(`${server.url}/apis/${apiId}?MaxResults=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-amz-target': 'DemoQueue.ListQueues' },
      body: '{}',
    });
    assert.deepEqual(((await list.json()) as { args: unknown }).args, {
      'X-Amz-Target': 'DemoQueue.ListQueues',
      MaxResults: '3',
    });
    const none = await expectProblem(await fetch(`${server.url}/apis/${apiId}/`, { method: 'POST', body: '{}' }), 404);
    assert.match(String(none.detail), /X-Amz-Target=DemoQueue\.SendMessage/);
  });

  it('routes a path with a presence suffix (#tagKeys) and repeated query keys', async () => {
    const response = await fetch(
      `${server.url}/apis/${apiId}/tags/${encodeURIComponent('arn:aws:sqs:q/1')}?tagKeys=a&tagKeys=b`,
      { method: 'DELETE' },
    );
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('x-toolenv-source'), 'synth');
  });

  it('rebuilds a real-shaped GitHub-like request: path, typed query, header, body', async () => {
    const list = await fetch(
      `${server.url}/apis/issues.test/repos/octo/hello/issues?state=closed&per_page=50&labels=bug,ui`,
      { headers: { 'X-GitHub-Api-Version': '2022-11-28' } },
    );
    const listed = (await list.json()) as { tool: string; args: unknown };
    assert.equal(listed.tool, 'issues_test__listIssues');
    assert.deepEqual(listed.args, {
      owner: 'octo',
      repo: 'hello',
      state: 'closed',
      per_page: 50,
      labels: 'bug,ui',
      'X-GitHub-Api-Version': '2022-11-28',
    });
    const created = await fetch(`${server.url}/apis/issues.test/repos/octo/hello/issues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Crash', labels: ['bug'], assignees: [] }),
    });
    assert.equal(created.status, 201);
    assert.deepEqual(((await created.json()) as { args: unknown }).args, {
      owner: 'octo',
      repo: 'hello',
      title: 'Crash',
      labels: ['bug'],
      assignees: [],
    });
    const one = (await (await fetch(`${server.url}/apis/issues.test/repos/octo/hello/issues/12`)).json()) as {
      tool: string;
      args: unknown;
    };
    assert.deepEqual(one, { tool: 'issues_test__getIssue', args: { owner: 'octo', repo: 'hello', issue_number: 12 } });
  });

  it('serves imported documents pointed at this server', async () => {
    const document = (await (await fetch(`${server.url}/apis/issues.test/openapi.json`)).json()) as {
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    assert.deepEqual(document.servers, [{ url: `${server.url}/apis/issues.test`, description: 'ToolEnv simulator' }]);
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/repos/{owner}/{repo}/issues',
      '/repos/{owner}/{repo}/issues/{issue_number}',
    ]);
  });
});

const awsStyleDocument = {
  openapi: '3.0.0',
  info: { title: 'Demo Queue', version: '2020-01-01', 'x-providerName': 'amazonaws.com', 'x-serviceName': 'demoqueue' },
  servers: [{ url: 'https://queue.us-east-1.amazonaws.com' }],
  paths: {
    '/#X-Amz-Target=DemoQueue.SendMessage': {
      post: {
        operationId: 'SendMessage',
        parameters: [
          {
            name: 'X-Amz-Target',
            in: 'header',
            required: true,
            schema: { type: 'string', enum: ['DemoQueue.SendMessage'] },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/SendMessageRequest' } } },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'object', properties: { MessageId: { type: 'string' } } } },
            },
          },
        },
      },
    },
    '/#X-Amz-Target=DemoQueue.ListQueues': {
      post: {
        operationId: 'ListQueues',
        parameters: [
          {
            name: 'X-Amz-Target',
            in: 'header',
            required: true,
            schema: { type: 'string', enum: ['DemoQueue.ListQueues'] },
          },
          { name: 'MaxResults', in: 'query', schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { QueueNamePrefix: { type: 'string' } } } },
          },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { QueueUrls: { type: 'array', items: { type: 'string' } } } },
              },
            },
          },
        },
      },
    },
    '/tags/{resourceArn}#tagKeys': {
      delete: {
        operationId: 'UntagResource',
        parameters: [
          { name: 'resourceArn', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'tagKeys',
            in: 'query',
            required: true,
            schema: { type: 'array', items: { type: 'string' } },
            style: 'form',
            explode: true,
          },
        ],
        responses: { '204': { description: 'done' } },
      },
    },
  },
  components: {
    schemas: {
      SendMessageRequest: {
        type: 'object',
        required: ['QueueUrl', 'MessageBody'],
        properties: {
          QueueUrl: { type: 'string' },
          MessageBody: { type: 'string' },
          DelaySeconds: { type: 'integer' },
        },
      },
    },
  },
};

const issuesDocument = `
openapi: 3.0.3
info:
  title: Issues
  version: "1.0"
  x-providerName: issues.test
servers:
  - url: https://issues.test/api
paths:
  /repos/{owner}/{repo}/issues:
    parameters:
      - { name: owner, in: path, required: true, schema: { type: string } }
      - { name: repo, in: path, required: true, schema: { type: string } }
    get:
      operationId: listIssues
      summary: List repository issues
      parameters:
        - { name: state, in: query, schema: { type: string, enum: [open, closed, all], default: open } }
        - { name: labels, in: query, description: A list of comma separated label names, schema: { type: string } }
        - { name: per_page, in: query, schema: { type: integer, maximum: 100 } }
        - { name: X-GitHub-Api-Version, in: header, schema: { type: string } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: "#/components/schemas/Issue" } }
    post:
      operationId: createIssue
      summary: Create an issue
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties:
                title: { type: string }
                labels: { type: array, items: { type: string } }
                assignees: { type: array, items: { type: string } }
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Issue" }
  /repos/{owner}/{repo}/issues/{issue_number}:
    get:
      operationId: getIssue
      summary: Get an issue
      parameters:
        - { name: owner, in: path, required: true, schema: { type: string } }
        - { name: repo, in: path, required: true, schema: { type: string } }
        - { name: issue_number, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Issue" }
components:
  schemas:
    Issue:
      type: object
      required: [id, title, state]
      properties:
        id: { type: integer }
        title: { type: string }
        state: { type: string }
`;
