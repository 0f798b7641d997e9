import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreApi, petstoreTools } from '../fixtures/tools.js';
import { expectProblem, startTestServer } from './helpers.js';

/** An operation that declares its own Authorization header parameter, as many real APIs do. */
const whoAmI: Tool = {
  id: 'petstore_test__whoAmI',
  name: 'Who am I',
  description: 'The caller',
  category: 'ecommerce',
  parameters: { type: 'object', properties: { Authorization: { type: 'string' } } },
  bindings: { Authorization: { in: 'header', name: 'Authorization' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'petstore.test',
    method: 'get',
    path: '/me',
    operation_id: 'whoAmI',
    server: null,
  },
};

describe('API key', () => {
  let server: RunningServer;
  const key = 'sk-test-0123456789';
  before(async () => {
    server = await startTestServer({ apiKey: key, tools: [...petstoreTools, whoAmI], apis: [petstoreApi] });
  });
  after(() => server.close());

  it('leaves /healthz open', async () => {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });

  it('answers 401 problems without the key or with a wrong one', async () => {
    for (const path of [
      '/v1/tools',
      '/v1/tools/weather_forecast',
      '/metrics',
      '/openapi.json',
      '/apis',
      '/apis/petstore.test/pets',
      '/nope',
    ]) {
      const missing = await fetch(`${server.url}${path}`);
      await expectProblem(missing, 401);
      assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    for (const authorization of [`Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, key, `Basic ${key}`, 'Bearer']) {
      await expectProblem(await fetch(`${server.url}/v1/tools`, { headers: { authorization } }), 401);
    }
    await expectProblem(
      await fetch(`${server.url}/v1/tools/weather_forecast/call`, { method: 'POST', body: '{}' }),
      401,
    );
  });

  it('lets requests with the key through, every route', async () => {
    const headers = { authorization: `Bearer ${key}` };
    assert.equal((await fetch(`${server.url}/v1/tools`, { headers })).status, 200);
    assert.equal((await fetch(`${server.url}/apis/petstore.test/pets?limit=1`, { headers })).status, 200);
    const call = await fetch(`${server.url}/v1/tools/weather_forecast/call`, {
      method: 'POST',
      headers,
      body: '{"arguments":{"city":"Rome"}}',
    });
    assert.equal(call.status, 200);
    const document = (await (
      await fetch(`${server.url}/openapi.json`, { headers: { authorization: `bearer ${key}` } })
    ).json()) as Record<string, unknown>;
    assert.deepEqual(document.security, [{ bearer: [] }]);
  });

  it('never passes its own key to a tool as an Authorization argument', async () => {
    const response = await fetch(`${server.url}/apis/petstore.test/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.deepEqual(await response.json(), { tool: 'petstore_test__whoAmI', args: {} });
  });
});

describe('no API key', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ tools: [...petstoreTools, whoAmI], apis: [petstoreApi] });
  });
  after(() => server.close());

  it('serves every route without Authorization, and ignores one', async () => {
    assert.equal((await fetch(`${server.url}/v1/tools`)).status, 200);
    assert.equal(
      (await fetch(`${server.url}/v1/tools`, { headers: { authorization: 'Bearer whatever' } })).status,
      200,
    );
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>;
    assert.equal(document.security, undefined);
  });

  it('passes Authorization to a tool that declares it', async () => {
    const response = await fetch(`${server.url}/apis/petstore.test/me`, {
      headers: { authorization: 'Bearer the-api-own-token' },
    });
    assert.deepEqual(await response.json(), {
      tool: 'petstore_test__whoAmI',
      args: { Authorization: 'Bearer the-api-own-token' },
    });
  });
});
