import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import type { RunningServer } from '../../src/server/serve.js';
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
