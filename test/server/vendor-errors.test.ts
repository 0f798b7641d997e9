/** The REST surface answers errors in the API's declared shape (GitHub's and Stripe's here); /v1 keeps problem+json. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonSchema } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { createAjv } from '../../src/library/ajv.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { basicError, importFixtures, stripeError, validationError } from '../fixtures/vendor-documents.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/server/free-port.js';
import { readUpstreamMap } from '../../src/simulator/upstream/base-urls.js';
import { tempDir } from '../fixtures/tools.js';
import { expectProblem, postJson, startTestServer } from './helpers.js';

const ajv = createAjv();
const conforms = (schema: JsonSchema, body: unknown) =>
  assert.ok(ajv.validate(schema as object, body), `${JSON.stringify(body)}: ${ajv.errorsText()}`);

type Json = Record<string, unknown>;

/** A vendor-shaped error: its status, plain JSON, the Rule layer's mark, and a body of the declared schema. */
async function expectVendorError(response: Response, status: number, schema: JsonSchema): Promise<Json> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  assert.equal(response.headers.get('content-type'), 'application/json');
  const body = JSON.parse(text) as Json;
  conforms(schema, body);
  return body;
}

describe('REST surface: vendor-shaped errors', () => {
  let server: RunningServer;
  let github: string;
  let stripe: string;
  before(async () => {
    const batch = await importFixtures();
    server = await startTestServer({ tools: batch.tools, apis: batch.apis, responders: [synthResponder] });
    github = `${server.url}/apis/github.com:api.github.com`;
    stripe = `${server.url}/apis/stripe.com`;
  });
  after(() => server.close());

  it('GitHub: a missing required argument is its 422 validation error, one errors[] item per argument', async () => {
    const response = await postJson(`${github}/repos/octocat/hello-world/issues`, { body: 'It crashes' });
    const body = await expectVendorError(response, 422, validationError);
    assert.equal(response.headers.get('x-toolenv-source'), 'rule');
    assert.equal(response.headers.get('x-toolenv-problem'), 'https://toolenv.dev/problems/invalid-arguments');
    assert.equal(body.message, '/title is required');
    assert.equal(typeof body.documentation_url, 'string');
    assert.deepEqual(
      (body.errors as Json[]).map((e) => [e.field, e.message, e.code]),
      [['title', '/title is required', 'parameter_missing']],
    );
  });

  it('GitHub: a path id that is no valid id names no resource: its 404', async () => {
    const response = await fetch(`${github}/repos/octocat/hello-world/issues/abc`);
    const body = await expectVendorError(response, 404, basicError);
    assert.match(String(body.message), /^\/issue_number must be integer/);
    assert.equal(body.status, '404');
    assert.equal(typeof body.documentation_url, 'string');
  });

  it(
    'GitHub: Prefer: code=404 answers the declared 404, ' + 'and a status declared without a body stays a problem',
    async () => {
      const response = await fetch(`${github}/repos/octocat/hello-world/issues/1`, { headers: { prefer: 'code=404' } });
      const body = await expectVendorError(response, 404, basicError);
      assert.equal(body.message, 'forced by Prefer: code=404');
      assert.equal(response.headers.get('x-toolenv-source'), 'rule');
      await expectProblem(await fetch(`${github}/repos/octocat/hello-world/issues/1?__code=410`), 410);
      // An operation that declares no 409 at all: the problem.
      await expectProblem(
        await fetch(`${github}/repos/octocat/hello-world/issues/1`, { headers: { prefer: 'code=409' } }),
        409,
      );
    },
  );

  it('an operation that declares neither 400 nor 422 refuses a bad argument with the 4xx it declares', async () => {
    // gists/get lists 200 and 404 only: a 400 would be a status its document does not have.
    const response = await fetch(`${github}/gists/g1?per_page=many`);
    const body = await expectVendorError(response, 404, basicError);
    assert.match(String(body.message), /^\/per_page must be integer/);
    const problem = await expectProblem(
      await fetch(`${github}/gists/g1?per_page=many`, { headers: { accept: 'application/problem+json' } }),
      400,
    );
    assert.equal(problem.title, 'Invalid arguments');
  });

  it(
    'Stripe: a missing required argument is its default error, ' + 'typed invalid_request_error and naming the param',
    async () => {
      const response = await fetch(`${stripe}/v1/charges`, {
        method: 'POST',
        body: new URLSearchParams({ currency: 'usd' }),
      });
      const body = await expectVendorError(response, 400, stripeError);
      assert.deepEqual(
        { ...(body.error as Json), doc_url: undefined },
        {
          type: 'invalid_request_error',
          message: '/body/amount is required',
          code: 'parameter_missing',
          param: 'amount',
          doc_url: undefined,
        },
      );
    },
  );

  it('Stripe: Prefer: code=402 is a card error in its default shape', async () => {
    const response = await fetch(`${stripe}/v1/customers/cus_123`, { headers: { prefer: 'code=402' } });
    const body = await expectVendorError(response, 402, stripeError);
    assert.equal((body.error as Json).type, 'card_error');
    assert.equal((body.error as Json).code, 'card_declined');
  });

  it('the same refusal on /v1 and with Accept: application/problem+json is a problem', async () => {
    const problem = await expectProblem(
      await postJson(`${server.url}/v1/tools/stripe_com__PostCharges/call`, {
        arguments: { body: { currency: 'usd' } },
      }),
      400,
    );
    assert.equal(problem.title, 'Invalid arguments');
    const rest = await fetch(`${stripe}/v1/charges`, {
      method: 'POST',
      headers: { accept: 'application/problem+json' },
      body: new URLSearchParams({ currency: 'usd' }),
    });
    assert.deepEqual(await expectProblem(rest, 400), problem);
    const forced = await postJson(
      `${server.url}/v1/tools/github_com_api_github_com__issues_get/call`,
      { arguments: { owner: 'o', repo: 'r', issue_number: 1 } },
      { prefer: 'code=404' },
    );
    await expectProblem(forced, 404);
  });

  it("an episode answers a resource it deleted with the API's 404, and records the problem", async () => {
    const episode = (await (await postJson(`${server.url}/v1/episodes`, { seed: 2, error_rate: 0 })).json()) as {
      id: string;
    };
    const headers = { 'x-toolenv-episode': episode.id };
    assert.equal((await fetch(`${github}/gists/g1`, { method: 'DELETE', headers })).status, 204);
    const response = await fetch(`${github}/gists/g1`, { headers });
    const body = await expectVendorError(response, 404, basicError);
    assert.equal(response.headers.get('x-toolenv-source'), 'state');
    assert.match(String(body.message), /deleted earlier in this episode/);
    const recorded = (await (await fetch(`${server.url}/v1/episodes/${episode.id}`)).json()) as {
      trajectory: { actions?: { result?: { body?: Json } }[] }[];
    };
    assert.match(JSON.stringify(recorded), /"type":"https:\/\/toolenv.dev\/problems\/not-found"/);
  });
});

describe('REST surface: injected errors in the vendor shape', () => {
  let server: RunningServer;
  before(async () => {
    const batch = await importFixtures();
    server = await startTestServer({
      tools: batch.tools,
      apis: batch.apis,
      responders: [synthResponder],
      errorRate: 1,
      seed: 7,
    });
  });
  after(() => server.close());

  it('Stripe: every injected error (429 with Retry-After, 401, 5xx) is its default error, seeded', async () => {
    const kinds = new Map<string, { status: number; headers: Headers; body: Json }>();
    for (let i = 0; i < 40 && kinds.size < 4; i++) {
      const response = await fetch(`${server.url}/apis/stripe.com/v1/customers/cus_${i}`);
      const body = await expectVendorError(response, response.status, stripeError);
      assert.equal(response.headers.get('x-toolenv-source'), 'rule');
      kinds.set(response.headers.get('x-toolenv-error')!, { status: response.status, headers: response.headers, body });
    }
    assert.deepEqual([...kinds.keys()].sort(), ['auth', 'network', 'rate_limit', 'timeout']);
    const limited = kinds.get('rate_limit')!;
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-5]$/);
    const error = limited.body.error as Json;
    // What says what went wrong, and no synthesized extras (a payment_intent, a param no argument is at fault for).
    assert.deepEqual(Object.keys(error).sort(), ['code', 'doc_url', 'message', 'type']);
    assert.match(
      String(error.message),
      /^rate limit exceeded for stripe_com__GetCustomersCustomer; retry after [1-5] s$/,
    );
    assert.equal(error.code, 'rate_limit');
    assert.equal(kinds.get('auth')!.status, 401);
    assert.equal(kinds.get('auth')!.headers.get('www-authenticate'), 'ApiKey');
    assert.equal((kinds.get('network')!.body.error as Json).type, 'api_error');
    assert.equal(kinds.get('timeout')!.status, 504);
  });
});

describe("REST surface: ToolEnv's own failures stay problems", () => {
  it(
    'an unreachable real API (--upstream passthrough) ' +
      "and a missing recording (replay) are not dressed as the API's errors",
    async (t) => {
      const batch = await importFixtures();
      const map = join(tempDir('toolenv-vendor-upstream-'), 'map.json');
      writeFileSync(map, JSON.stringify({ 'stripe.com': `http://127.0.0.1:${await freePort()}` }));
      const passthrough = await startTestServer({
        tools: batch.tools,
        apis: batch.apis,
        responders: [synthResponder],
        upstream: { mode: 'passthrough', map: readUpstreamMap(map) },
      });
      t.after(() => passthrough.close());
      const unreachable = await fetch(`${passthrough.url}/apis/stripe.com/v1/customers/cus_1`);
      assert.equal((await expectProblem(unreachable, 502)).title, 'Upstream unreachable');
      assert.equal(unreachable.headers.get('x-toolenv-problem'), null);

      const replay = await startTestServer({
        tools: batch.tools,
        apis: batch.apis,
        responders: [synthResponder],
        upstream: { mode: 'replay' },
      });
      t.after(() => replay.close());
      assert.equal(
        (await expectProblem(await fetch(`${replay.url}/apis/stripe.com/v1/customers/cus_1`), 501)).title,
        'No recording',
      );
    },
  );
});
