/** `serve --security enforce`: the REST surface asks for the credentials each operation's `security` declares. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importOpenapi } from '../../src/library/importers/openapi.js';
import type { RunningServer } from '../../src/server/serve.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir } from '../fixtures/tools.js';
import { stripeError } from '../fixtures/vendor-documents.js';
import { expectProblem, startTestServer } from './helpers.js';

const ok = {
  description: 'OK',
  content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
};
const failure = { description: 'Error', content: { 'application/json': { schema: stripeError } } };

/** A shop whose operations authenticate every way OpenAPI 3 says, with Stripe's error shape as its default response. */
const shopDocument = {
  openapi: '3.0.3',
  info: { title: 'Shop', version: '1', 'x-providerName': 'shop.example' },
  security: [{ key: [] }],
  paths: {
    '/orders': { get: { operationId: 'listOrders', responses: { '200': ok, default: failure } } },
    '/status': { get: { operationId: 'status', security: [], responses: { '200': ok } } },
    '/admin': {
      get: { operationId: 'admin', security: [{ basic: [] }, { oauth: ['admin'] }], responses: { '200': ok } },
    },
    '/cart': { get: { operationId: 'cart', security: [{ key: [], session: [] }], responses: { '200': ok } } },
    '/search': { get: { operationId: 'search', security: [{ token: [] }, {}], responses: { '200': ok } } },
    '/vault': { get: { operationId: 'vault', responses: { '200': ok, '403': failure, '404': failure } } },
  },
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      token: { type: 'apiKey', in: 'query', name: 'token' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
      basic: { type: 'http', scheme: 'basic' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://shop.example/token', scopes: { admin: 'all' } } },
      },
    },
  },
};

async function shopLibrary() {
  const dir = tempDir('toolenv-security-');
  writeFileSync(join(dir, 'shop.json'), JSON.stringify(shopDocument));
  return importOpenapi(dir);
}

describe('REST surface: declared security', () => {
  let enforced: RunningServer;
  let ignored: RunningServer;
  let keyed: RunningServer;
  before(async () => {
    const batch = await shopLibrary();
    const common = { tools: batch.tools, apis: batch.apis, responders: [synthResponder] };
    [enforced, ignored, keyed] = await Promise.all([
      startTestServer({ ...common, security: 'enforce' }),
      startTestServer(common),
      startTestServer({ ...common, security: 'enforce', apiKey: 'toolenv-secret' }),
    ]);
  });
  after(() => Promise.all([enforced, ignored, keyed].map((s) => s.close())));

  const shop = (server: RunningServer) => `${server.url}/apis/shop.example`;

  it('by default security is not checked', async () => {
    assert.equal((await fetch(`${shop(ignored)}/orders`)).status, 200);
    assert.equal((await fetch(`${shop(ignored)}/admin`)).status, 200);
  });

  it(
    'a missing API key is the API’s own 401 in its declared error shape; ' + 'with the key the call is answered',
    async () => {
      const refused = await fetch(`${shop(enforced)}/orders`);
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('content-type'), 'application/json');
      assert.equal(refused.headers.get('x-toolenv-problem'), 'https://toolenv.dev/problems/missing-credentials');
      const body = (await refused.json()) as { error: { type: string; message: string; code: string } };
      assert.equal(body.error.code, 'unauthorized');
      assert.match(body.error.message, /the API key "X-API-Key" \(header\) is missing/);
      assert.equal((await fetch(`${shop(enforced)}/orders`, { headers: { 'x-api-key': 'k1' } })).status, 200);
      assert.equal((await fetch(`${shop(enforced)}/orders`, { headers: { 'x-api-key': ' ' } })).status, 401);
    },
  );

  it('an operation’s own security overrides the document’s: none needed, or any one of its alternatives', async () => {
    assert.equal((await fetch(`${shop(enforced)}/status`)).status, 200);
    const basic = `Basic ${Buffer.from('ada:pw').toString('base64')}`;
    assert.equal((await fetch(`${shop(enforced)}/admin`, { headers: { authorization: basic } })).status, 200);
    assert.equal((await fetch(`${shop(enforced)}/admin`, { headers: { authorization: 'Bearer tok_1' } })).status, 200);
    // The document-wide API key is not what /admin asks for.
    assert.equal((await fetch(`${shop(enforced)}/admin`, { headers: { 'x-api-key': 'k1' } })).status, 401);
    // `{}` among the alternatives makes credentials optional.
    assert.equal((await fetch(`${shop(enforced)}/search`)).status, 200);
  });

  it('malformed credentials are refused, saying what is wrong, with a WWW-Authenticate challenge', async () => {
    const notBase64 = await fetch(`${shop(enforced)}/admin`, { headers: { authorization: 'Basic not-base64!' } });
    const problem = await expectProblem(notBase64, 401);
    assert.match(String(problem.detail), /Basic credentials are not base64 of "user:password"/);
    assert.match(String(problem.detail), /or .*Bearer/);
    assert.equal(notBase64.headers.get('www-authenticate'), 'Basic realm="api"');
    const noPair = await fetch(`${shop(enforced)}/admin`, {
      headers: { authorization: `Basic ${Buffer.from('ada').toString('base64')}` },
    });
    assert.equal(noPair.status, 401);
    const emptyBearer = await fetch(`${shop(enforced)}/admin`, { headers: { authorization: 'Bearer' } });
    assert.equal(emptyBearer.status, 401);
  });

  it('an operation that declares 403 and no 401 refuses credentials with its 403, in its declared shape', async () => {
    const refused = await fetch(`${shop(enforced)}/vault`);
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('x-toolenv-undeclared-status'), null);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unauthorized');
    assert.match(body.error.message, /X-API-Key/);
    assert.equal((await fetch(`${shop(enforced)}/vault`, { headers: { 'x-api-key': 'k1' } })).status, 200);
    // Where 401 is declared (here by `default`) it stays the refusal's status.
    assert.equal((await fetch(`${shop(enforced)}/orders`)).status, 401);
  });

  it('every scheme of one alternative is needed: a header key and a cookie together', async () => {
    const keyOnly = await expectProblem(await fetch(`${shop(enforced)}/cart`, { headers: { 'x-api-key': 'k1' } }), 401);
    assert.match(String(keyOnly.detail), /the API key "sid" \(cookie\) is missing/);
    assert.equal(
      (await fetch(`${shop(enforced)}/cart`, { headers: { 'x-api-key': 'k1', cookie: 'sid=s1' } })).status,
      200,
    );
  });

  it('ToolEnv’s own key sent as Authorization is never taken for the API’s bearer token', async () => {
    const own = { authorization: 'Bearer toolenv-secret' };
    assert.equal((await fetch(`${shop(keyed)}/admin`, { headers: own })).status, 401);
    const apiToken = await fetch(`${shop(keyed)}/admin`, {
      headers: { 'x-toolenv-key': 'toolenv-secret', authorization: 'Bearer tok_1' },
    });
    assert.equal(apiToken.status, 200);
  });
});
