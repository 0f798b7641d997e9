import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiRecord, JsonSchemaObject, Tool } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreApi, petstoreTools } from '../fixtures/tools.js';
import { expectProblem, postJson, startTestServer } from './helpers.js';

const api = (api_id: string): ApiRecord => ({
  api_id,
  title: api_id,
  provider: api_id,
  category: 'test',
  format: 'openapi',
  document: {
    openapi: '3.0.0',
    info: { title: api_id, version: '1' },
    servers: [{ url: `https://${api_id}` }],
    paths: {},
  },
});

/**
 * A weatherbit-shaped operation: GET /current?{keys}, plus the API key. The keys are bound as the converter binds
 * weatherbit's document, which declares them `in: path` though they sit in the key's query part.
 */
function weather(id: string, path: string, keys: string[]): Tool {
  const names = [...keys, 'key', 'units'];
  const parameters: JsonSchemaObject = {
    type: 'object',
    required: [...keys, 'key'],
    properties: Object.fromEntries(
      names.map((name) => [name, name === 'lat' || name === 'lon' ? { type: 'number' } : { type: 'string' }]),
    ),
  };
  return {
    id,
    name: id,
    description: id,
    category: 'weather',
    parameters,
    bindings: Object.fromEntries(
      names.map((name) => [name, { in: keys.includes(name) ? ('path' as const) : ('query' as const), name }]),
    ),
    examples: [],
    origin: { format: 'openapi', api_id: 'weatherbit.test', method: 'get', path, operation_id: id, server: null },
  };
}

const weatherTools = [
  weather('cities', '/current?cities={cities}', ['cities']),
  weather('city', '/current?city={city}&country={country}', ['city', 'country']),
  weather('latlon', '/current?lat={lat}&lon={lon}', ['lat', 'lon']),
  weather('daily_city', '/forecast/daily?city={city}', ['city']),
  weather('daily_latlon', '/forecast/daily?lat={lat}&lon={lon}', ['lat', 'lon']),
];

/** Stripe's shape: a form-encoded body with objects and arrays in brackets. */
const createCharge: Tool = {
  id: 'stripe_test__PostCharges',
  name: 'Create a charge',
  description: 'Create a charge',
  category: 'financial',
  parameters: {
    type: 'object',
    properties: {
      body: {
        type: 'object',
        properties: {
          amount: { type: 'integer' },
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
          expand: { type: 'array', items: { type: 'string' } },
          items: {
            type: 'array',
            items: { type: 'object', properties: { price: { type: 'string' }, quantity: { type: 'integer' } } },
          },
          capture: { type: 'boolean' },
        },
      },
    },
  },
  bindings: { body: { in: 'body', name: '' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'stripe.test',
    method: 'post',
    path: '/v1/charges',
    operation_id: 'PostCharges',
    server: null,
  },
};

const listCharges: Tool = {
  ...createCharge,
  id: 'stripe_test__GetCharges',
  parameters: {
    type: 'object',
    properties: {
      created: { type: 'object', properties: { gte: { type: 'integer' }, lt: { type: 'integer' } } },
      limit: { type: 'integer' },
    },
  },
  bindings: { created: { in: 'query', name: 'created' }, limit: { in: 'query', name: 'limit' } },
  origin: { ...createCharge.origin, method: 'get', operation_id: 'GetCharges' } as Tool['origin'],
};

/** GitHub's shape: the API's own token in Authorization, declared as a header parameter. */
const getUser: Tool = {
  id: 'github_test__users_get',
  name: 'Get the authenticated user',
  description: 'Get the authenticated user',
  category: 'collaboration',
  parameters: { type: 'object', properties: { Authorization: { type: 'string' } } },
  bindings: { Authorization: { in: 'header', name: 'Authorization' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'github.test',
    method: 'get',
    path: '/user',
    operation_id: 'users/get',
    server: null,
  },
};

const tools = [...petstoreTools, ...weatherTools, createCharge, listCharges, getUser];
const apis = [petstoreApi, api('weatherbit.test'), api('stripe.test'), api('github.test')];

const echoed = async (response: Response) => {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as { tool: string; args: Record<string, unknown> };
};

describe('REST routing by the query keys a request carries', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ tools, apis });
  });
  after(() => server.close());

  it('GET /current?lat&lon reaches the lat/lon operation, not the first one declared', async () => {
    assert.deepEqual(
      await echoed(await fetch(`${server.url}/apis/weatherbit.test/current?lat=35.78&lon=-78.64&key=abc`)),
      {
        tool: 'latlon',
        args: { lat: 35.78, lon: -78.64, key: 'abc' },
      },
    );
    assert.equal(
      (await echoed(await fetch(`${server.url}/apis/weatherbit.test/current?city=Raleigh&country=US&key=abc`))).tool,
      'city',
    );
    assert.equal(
      (
        await echoed(
          await fetch(`${server.url}/apis/weatherbit.test/forecast/daily?lat=35.78&lon=-78.64&key=abc&units=M`),
        )
      ).tool,
      'daily_latlon',
    );
    assert.equal(
      (await echoed(await fetch(`${server.url}/apis/weatherbit.test/forecast/daily?city=Raleigh&key=abc`))).tool,
      'daily_city',
    );
  });

  it('maps bracket-encoded form fields onto object and array parameters, as Stripe SDKs send them', async () => {
    const form = new URLSearchParams([
      ['amount', '2000'],
      ['metadata[order_id]', '6735'],
      ['metadata[note]', 'gift'],
      ['expand[]', 'customer'],
      ['expand[]', 'invoice'],
      ['items[0][price]', 'price_1'],
      ['items[0][quantity]', '2'],
      ['items[1][price]', 'price_2'],
      ['capture', 'false'],
    ]);
    const response = await fetch(`${server.url}/apis/stripe.test/v1/charges`, { method: 'POST', body: form });
    assert.deepEqual((await echoed(response)).args, {
      body: {
        amount: 2000,
        metadata: { order_id: '6735', note: 'gift' },
        expand: ['customer', 'invoice'],
        items: [{ price: 'price_1', quantity: 2 }, { price: 'price_2' }],
        capture: false,
      },
    });
  });

  it('maps nested bracket keys in a query onto an object parameter', async () => {
    const response = await fetch(
      `${server.url}/apis/stripe.test/v1/charges?created[gte]=1700000000&created[lt]=1800000000&limit=3`,
    );
    assert.deepEqual((await echoed(response)).args, { created: { gte: 1700000000, lt: 1800000000 }, limit: 3 });
  });
});

describe("the server key beside the API's own token", () => {
  const key = 'sk-server-key';
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ tools, apis, apiKey: key });
  });
  after(() => server.close());

  it("accepts the server key in x-toolenv-key, and passes the API's Authorization through to the tool", async () => {
    const response = await fetch(`${server.url}/apis/github.test/user`, {
      headers: { 'x-toolenv-key': key, authorization: 'token ghp_abc' },
    });
    assert.deepEqual(await echoed(response), {
      tool: 'github_test__users_get',
      args: { Authorization: 'token ghp_abc' },
    });
    const call = await postJson(
      `${server.url}/v1/tools/petstore_test__getPetById/call`,
      { arguments: { petId: 1 } },
      { 'x-toolenv-key': key },
    );
    assert.equal(call.status, 200);
  });

  it('still takes Authorization: Bearer KEY, and then never passes it to the tool', async () => {
    const response = await fetch(`${server.url}/apis/github.test/user`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.deepEqual(await echoed(response), { tool: 'github_test__users_get', args: {} });
  });

  it("answers 401 to the API's token alone, saying where the server key goes", async () => {
    const problem = await expectProblem(
      await fetch(`${server.url}/apis/github.test/user`, { headers: { authorization: 'token ghp_abc' } }),
      401,
    );
    assert.match(String(problem.detail), /x-toolenv-key/);
    await expectProblem(
      await fetch(`${server.url}/apis/github.test/user`, {
        headers: { 'x-toolenv-key': 'wrong', authorization: 'token ghp_abc' },
      }),
      401,
    );
    await expectProblem(
      await postJson(
        `${server.url}/v1/tools/petstore_test__getPetById/call`,
        { arguments: { petId: 1 } },
        { 'x-toolenv-key': 'wrong' },
      ),
      401,
    );
  });

  it('a wrong x-toolenv-key beside a right Bearer key never leaks the key into the arguments', async () => {
    const response = await fetch(`${server.url}/apis/github.test/user`, {
      headers: { 'x-toolenv-key': 'wrong', authorization: `Bearer ${key}` },
    });
    assert.deepEqual(await echoed(response), { tool: 'github_test__users_get', args: {} });
  });
});

describe('unknown arguments and coercion over HTTP', () => {
  let strict: RunningServer;
  let lax: RunningServer;
  before(async () => {
    strict = await startTestServer({ tools, apis });
    lax = await startTestServer({ tools, apis, unknownArguments: 'ignore', coercion: 'lax' });
  });
  after(async () => {
    await strict.close();
    await lax.close();
  });

  it('a top-level argument the spec nests under body is a 400 naming it, on /v1 and in a batch', async () => {
    const problem = await expectProblem(
      await postJson(`${strict.url}/v1/tools/stripe_test__PostCharges/call`, { arguments: { amount: 2000, bogus: 1 } }),
      400,
    );
    assert.deepEqual(
      [problem.title, problem.unknown, problem.allowed],
      ['Unknown arguments', ['amount', 'bogus'], ['body']],
    );
    assert.match(JSON.stringify(problem.errors), /did you mean \\"body.amount\\"/);
    const batch = (await (
      await postJson(`${strict.url}/v1/calls`, {
        calls: [{ tool: 'petstore_test__getPetById', arguments: { petId: 1, bogus: 1 } }],
      })
    ).json()) as { results: { status: number }[] };
    assert.equal(batch.results[0]!.status, 400);
  });

  it('an episode records the refusal like any other', async () => {
    const episode = (await (await postJson(`${strict.url}/v1/episodes`, { seed: 1 })).json()) as { id: string };
    const step = (await (
      await postJson(`${strict.url}/v1/episodes/${episode.id}/step`, {
        actions: [{ type: 'tool_call', tool: 'petstore_test__getPetById', arguments: { petId: 1, bogus: 1 } }],
      })
    ).json()) as {
      observations: { status: number; source: string; body: { title: string } }[];
    };
    assert.deepEqual(
      [step.observations[0]!.status, step.observations[0]!.source, step.observations[0]!.body.title],
      [400, 'rule', 'Unknown arguments'],
    );
  });

  it(
    'serve --unknown-arguments ignore --coercion lax: ' + 'the call is answered, and the answer says what changed',
    async () => {
      const response = await postJson(`${lax.url}/v1/tools/petstore_test__getPetById/call`, {
        arguments: { petId: '7', bogus: 1 },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-toolenv-ignored'), 'bogus');
      assert.equal(response.headers.get('x-toolenv-coerced'), '/petId string->integer');
      assert.deepEqual(await response.json(), { tool: 'petstore_test__getPetById', args: { petId: 7 } });

      const episode = (await (await postJson(`${lax.url}/v1/episodes`, { seed: 1 })).json()) as { id: string };
      const step = (await (
        await postJson(`${lax.url}/v1/episodes/${episode.id}/step`, {
          actions: [{ type: 'tool_call', tool: 'petstore_test__getPetById', arguments: { petId: '8' } }],
        })
      ).json()) as {
        observations: { status: number; coerced?: unknown; headers?: Record<string, string> }[];
      };
      assert.equal(step.observations[0]!.status, 200);
      assert.deepEqual(step.observations[0]!.coerced, [{ path: '/petId', from: 'string', to: 'integer' }]);
      const recorded = (await (await fetch(`${lax.url}/v1/episodes/${episode.id}`)).json()) as {
        steps: { observations: { coerced?: unknown }[] }[];
      };
      assert.deepEqual(recorded.steps[0]!.observations[0]!.coerced, [
        { path: '/petId', from: 'string', to: 'integer' },
      ]);
    },
  );
});
