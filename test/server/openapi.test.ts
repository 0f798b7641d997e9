import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import { createAjv } from '../../src/library/ajv.js';
import { LibraryStore } from '../../src/library/store.js';
import { createApp } from '../../src/server/app.js';
import { chatRoutes } from '../../src/server/routes/chat.js';
import type { RunningServer } from '../../src/server/serve.js';
import { LlamaEngine } from '../../src/simulator/llama/engine.js';
import { runRoutes } from '../../src/studio/routes.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { postJson, startTestServer } from './helpers.js';

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

describe('GET /openapi.json', () => {
  let server: RunningServer;
  let doc: Json;
  before(async () => {
    server = await startTestServer();
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Json;
  });
  after(() => server.close());

  it('is OpenAPI 3.1 with servers set to this server', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: server.url }]);
  });

  it('documents every route the app serves, and nothing else', () => {
    const served = new Set<string>();
    for (const route of server.app.routes) {
      if (route.path === '*' || route.path === '/*') continue;
      const path = route.path === '/apis/*' ? '/apis/{api_id}/{path}' : route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      served.add(path);
    }
    served.add('/apis/{api_id}/openapi.json');
    assert.deepEqual(Object.keys(doc.paths).sort(), [...served].sort());
  });

  it('is internally consistent: refs resolve, operation ids are unique, path parameters are declared', () => {
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce((node: Json | undefined, key) => node?.[key], doc);
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) assert.ok(resolve(JSON.parse(`{${ref}}`).$ref), ref);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of Object.keys(item)) {
        assert.ok(METHODS.includes(method), `${path} ${method}`);
        const operation = item[method] as Json;
        assert.ok(!ids.has(operation.operationId), operation.operationId);
        ids.add(operation.operationId);
        assert.ok(Object.keys(operation.responses).length > 0);
        const declared = (operation.parameters ?? [])
          .map((p: Json) => (p.$ref ? resolve(p.$ref) : p))
          .filter((p: Json) => p.in === 'path');
        for (const name of path.match(/\{([^}]+)\}/g) ?? []) {
          assert.ok(
            declared.some((p: Json) => `{${p.name}}` === name && p.required === true),
            `${method} ${path} declares ${name}`,
          );
        }
      }
    }
  });

  it('describes the real responses: the component schemas validate what the server answers', async () => {
    const ajv = createAjv();
    const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
    const check = (name: string, value: unknown) => {
      const validate = ajv.compile({ $ref: `#/$defs/${name}`, $defs: defs });
      assert.ok(validate(value), `${name}: ${JSON.stringify(validate.errors)}`);
    };
    check('Health', await (await fetch(`${server.url}/healthz`)).json());
    check('ToolPage', await (await fetch(`${server.url}/v1/tools?limit=2`)).json());
    check('Tool', await (await fetch(`${server.url}/v1/tools/petstore_test__getPetById`)).json());
    check('Problem', await (await fetch(`${server.url}/v1/tools/missing`)).json());
    check('ApiList', await (await fetch(`${server.url}/apis`)).json());
    const batch = await postJson(`${server.url}/v1/calls?__code=429`, {
      calls: [{ tool: 'weather_forecast', arguments: { city: 'Oslo' } }, { tool: 'x' }],
    });
    check('BatchResponse', await batch.json());
    check('BatchRequest', { calls: [{ tool: 'weather_forecast', arguments: {} }] });
  });

  it('adds the bearer scheme only when a key is required, leaving /healthz open', async () => {
    assert.equal(doc.components.securitySchemes, undefined);
    const secured = await startTestServer({ apiKey: 'k' });
    try {
      const securedDoc = (await (
        await fetch(`${secured.url}/openapi.json`, { headers: { authorization: 'Bearer k' } })
      ).json()) as Json;
      assert.deepEqual(securedDoc.security, [{ bearer: [] }]);
      assert.equal(securedDoc.components.securitySchemes.bearer.scheme, 'bearer');
      assert.deepEqual(securedDoc.paths['/healthz'].get.security, []);
    } finally {
      await secured.close();
    }
  });
});

/** `METHOD /path` of every route an app mounts, its path as the document writes it. */
function mountedOperations(routes: readonly { method: string; path: string }[]): string[] {
  return routes.flatMap(({ method, path }) => {
    // app.use('*'): the metrics, key and body-limit middleware.
    if (path === '/*') return [];
    // One hono route answers for every method: each API's document, and its REST surface.
    if (path === '/apis/*') {
      return [
        'GET /apis/{api_id}/openapi.json',
        ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((rest) => `${rest} /apis/{api_id}/{path}`),
      ];
    }
    return [`${method} ${path.replace(/:([A-Za-z_]+)/g, '{$1}')}`];
  });
}

const declaredOperations = (doc: Json): string[] =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );

/** Mounted routes no operation declares, and declared operations no route serves. */
function mismatches(mounted: readonly string[], declared: readonly string[]) {
  return {
    undeclared: mounted.filter((operation) => !declared.includes(operation)),
    unrouted: declared.filter((operation) => !mounted.includes(operation)),
  };
}

describe('the declared operations and the mounted routes', () => {
  it('match, method by method, on a server that mounts every route', async () => {
    // Never loaded: chatRoutes only reads the model's file name until a request comes.
    const engine = new LlamaEngine({ model: 'unloaded.gguf' });
    const server = await startTestServer({ routes: [chatRoutes(engine), runRoutes(undefined)] });
    try {
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Json;
      const mounted = mountedOperations(server.app.routes);
      assert.deepEqual(mismatches(mounted, declaredOperations(doc)), { undeclared: [], unrouted: [] });
      for (const operation of ['GET /v1/runs/{name}', 'POST /v1/chat/completions'])
        assert.ok(declaredOperations(doc).includes(operation), `${operation}, mounted beside, is declared`);
    } finally {
      await server.close();
    }
  });

  it('match on an app without episodes, which mounts neither their routes nor MCP nor OpenEnv', async () => {
    const store = LibraryStore.open(writeFixtureLibrary());
    const app = createApp({ store, simulator: { call: async () => assert.fail('no call is made') } });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const doc = (await (await fetch(`${url}/openapi.json`)).json()) as Json;
      assert.deepEqual(mismatches(mountedOperations(app.routes), declaredOperations(doc)), {
        undeclared: [],
        unrouted: [],
      });
      assert.equal(doc.paths['/v1/episodes'], undefined);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      store.close();
    }
  });
});
