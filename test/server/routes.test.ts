import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreTools } from '../fixtures/tools.js';
import { expectProblem, postJson, startTestServer } from './helpers.js';

describe('server routes', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('GET /healthz counts the tools', async () => {
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok', tools: petstoreTools.length, seed: 0 });
  });

  it('GET /v1/tools pages through the library and filters', async () => {
    const first = (await (await fetch(`${server.url}/v1/tools?limit=2`)).json()) as {
      tools: { id: string }[];
      next_cursor: string;
    };
    assert.deepEqual(
      first.tools.map((t) => t.id),
      ['petstore_test__listPets', 'petstore_test__addPet'],
    );
    const second = (await (await fetch(`${server.url}/v1/tools?limit=2&cursor=${first.next_cursor}`)).json()) as {
      tools: { id: string }[];
    };
    assert.deepEqual(
      second.tools.map((t) => t.id),
      ['petstore_test__getPetById', 'petstore_test__deletePet'],
    );
    const weather = (await (await fetch(`${server.url}/v1/tools?category=weather`)).json()) as {
      tools: { id: string }[];
      next_cursor: null;
    };
    assert.deepEqual(weather, {
      tools: [
        {
          id: 'weather_forecast',
          name: 'weather_forecast',
          description: petstoreTools[4]!.description,
          category: 'weather',
        },
      ],
      next_cursor: null,
    });
    const found = (await (await fetch(`${server.url}/v1/tools?q=${encodeURIComponent('pet by')}`)).json()) as {
      tools: { id: string }[];
    };
    assert.deepEqual(
      found.tools.map((t) => t.id),
      ['petstore_test__getPetById'],
    );
  });

  it('GET /v1/tools rejects a bad limit or cursor; an empty cursor is the first page', async () => {
    assert.match(String((await expectProblem(await fetch(`${server.url}/v1/tools?limit=0`), 400)).detail), /limit/);
    assert.match(String((await expectProblem(await fetch(`${server.url}/v1/tools?limit=abc`), 400)).detail), /limit/);
    assert.match(
      String((await expectProblem(await fetch(`${server.url}/v1/tools?cursor=%21%21`), 400)).detail),
      /cursor/,
    );
    const first = await (await fetch(`${server.url}/v1/tools?limit=2`)).json();
    assert.deepEqual(await (await fetch(`${server.url}/v1/tools?limit=2&cursor=`)).json(), first);
  });

  it('GET /v1/tools/{id} answers the full record, 404 otherwise', async () => {
    const response = await fetch(`${server.url}/v1/tools/petstore_test__getPetById`);
    assert.deepEqual(await response.json(), petstoreTools[2]);
    const missing = await expectProblem(await fetch(`${server.url}/v1/tools/nope`), 404);
    assert.match(String(missing.detail), /nope/);
  });

  it('POST /v1/tools/{id}/call answers the simulated status and body with x-toolenv-source', async () => {
    const url = `${server.url}/v1/tools/petstore_test__addPet/call`;
    const first = await postJson(url, { arguments: { name: 'Rex' } });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('x-toolenv-source'), 'synth');
    assert.equal(first.headers.get('x-toolenv-error'), null);
    assert.deepEqual(await first.json(), { tool: 'petstore_test__addPet', args: { name: 'Rex' } });
    const again = await postJson(url, { arguments: { name: 'Rex' } });
    assert.equal(again.headers.get('x-toolenv-source'), 'cache');
    assert.deepEqual(await again.json(), { tool: 'petstore_test__addPet', args: { name: 'Rex' } });
  });

  it('POST /v1/tools/{id}/call: an empty body means no arguments', async () => {
    const response = await fetch(`${server.url}/v1/tools/petstore_test__listPets/call`, { method: 'POST' });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { tool: 'petstore_test__listPets', args: {} });
  });

  it('POST /v1/tools/{id}/call passes the simulator’s 400 and 404 problems through', async () => {
    const invalid = await expectProblem(
      await postJson(`${server.url}/v1/tools/petstore_test__addPet/call`, { arguments: { status: 'sold' } }),
      400,
    );
    assert.ok(Array.isArray(invalid.errors));
    await expectProblem(await postJson(`${server.url}/v1/tools/petstore_test__nothing/call`, { arguments: {} }), 404);
    const wrongShape = await expectProblem(
      await postJson(`${server.url}/v1/tools/petstore_test__addPet/call`, { args: {} }),
      400,
    );
    assert.match(String(wrongShape.detail), /"args"/);
    await expectProblem(await postJson(`${server.url}/v1/tools/petstore_test__addPet/call`, [1, 2]), 400);
  });

  it('Prefer: code=429 injects a rate limit with Retry-After; __code does the same from the query', async () => {
    const viaHeader = await postJson(
      `${server.url}/v1/tools/petstore_test__listPets/call`,
      { arguments: {} },
      { prefer: 'code=429' },
    );
    assert.equal(viaHeader.status, 429);
    assert.equal(viaHeader.headers.get('x-toolenv-error'), 'rate_limit');
    assert.equal(viaHeader.headers.get('x-toolenv-source'), 'rule');
    assert.match(viaHeader.headers.get('retry-after') ?? '', /^\d+$/);
    const viaQuery = await postJson(`${server.url}/v1/tools/petstore_test__listPets/call?__code=429`, {
      arguments: {},
    });
    assert.equal(viaQuery.status, 429);
    assert.equal(viaQuery.headers.get('x-toolenv-error'), 'rate_limit');
  });

  it('Prefer: example=NAME and dynamic=true reach the simulator; an unknown example is 404, bad values 400', async () => {
    const unknown = await expectProblem(
      await postJson(
        `${server.url}/v1/tools/petstore_test__getPetById/call`,
        { arguments: { petId: 7 } },
        { prefer: 'example=nope' },
      ),
      404,
    );
    assert.equal(unknown.title, 'Unknown example');
    assert.match(String(unknown.detail), /nope/);
    const url = `${server.url}/v1/tools/petstore_test__getPetById/call`;
    await postJson(url, { arguments: { petId: 8 } });
    const dynamic = await postJson(url, { arguments: { petId: 8 } }, { prefer: 'dynamic=true' });
    assert.equal(dynamic.headers.get('x-toolenv-source'), 'synth');
    await expectProblem(await postJson(url, { arguments: { petId: 8 } }, { prefer: 'dynamic=maybe' }), 400);
    await expectProblem(await postJson(`${url}?__code=99`, { arguments: { petId: 8 } }), 400);
  });

  it('POST /v1/calls runs a batch and answers in order', async () => {
    const response = await postJson(`${server.url}/v1/calls`, {
      calls: [
        { tool: 'petstore_test__getPetById', arguments: { petId: 1 } },
        { tool: 'no_such_tool', arguments: {} },
        { tool: 'weather_forecast', arguments: { city: 'Oslo' } },
        { tool: 'petstore_test__addPet' },
      ],
    });
    assert.equal(response.status, 200);
    const { results } = (await response.json()) as {
      results: { status: number; body: Record<string, unknown>; source: string }[];
    };
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 404, 200, 400],
    );
    assert.deepEqual(results[0]!.body, { tool: 'petstore_test__getPetById', args: { petId: 1 } });
    assert.equal(results[1]!.source, 'rule');
    assert.deepEqual(results[2]!.body, { tool: 'weather_forecast', args: { city: 'Oslo' } });
  });

  it('POST /v1/calls carries injected errors and their headers per result', async () => {
    const response = await postJson(`${server.url}/v1/calls?__code=429`, {
      calls: [{ tool: 'petstore_test__listPets', arguments: {} }],
    });
    const { results } = (await response.json()) as {
      results: { status: number; error?: string; headers?: Record<string, string> }[];
    };
    assert.equal(results[0]!.status, 429);
    assert.equal(results[0]!.error, 'rate_limit');
    assert.match(results[0]!.headers?.['retry-after'] ?? '', /^\d+$/);
  });

  it('POST /v1/calls rejects malformed batches and batches over the cap', async () => {
    await expectProblem(await postJson(`${server.url}/v1/calls`, { calls: [] }), 400);
    await expectProblem(await postJson(`${server.url}/v1/calls`, { call: [] }), 400);
    const noTool = await expectProblem(await postJson(`${server.url}/v1/calls`, { calls: [{ arguments: {} }] }), 400);
    assert.match(String(noTool.detail), /calls\[0\]/);
    const tooMany = await expectProblem(
      await postJson(`${server.url}/v1/calls`, {
        calls: Array.from({ length: 101 }, () => ({ tool: 'weather_forecast', arguments: { city: 'x' } })),
      }),
      400,
    );
    assert.equal(tooMany.max_batch, 100);
  });

  it('GET /metrics renders simulator and HTTP counters in Prometheus text', async () => {
    await fetch(`${server.url}/healthz`);
    const response = await fetch(`${server.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    assert.match(text, /^toolenv_calls_total\{source="synth",status="201"\} \d+$/m);
    assert.match(text, /^toolenv_cache_hits_total [1-9]\d*$/m);
    assert.match(text, /^toolenv_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
    assert.match(text, /^toolenv_http_requests_total\{method="GET",route="\/v1\/tools\/:id",status="404"\} [1-9]\d*$/m);
    assert.match(text, /^toolenv_http_request_duration_seconds_count\{route="\/v1\/tools\/:id\/call"\} [1-9]\d*$/m);
    assert.match(text, /^process_resident_memory_bytes \d+$/m);
    assert.match(text, /^toolenv_episode_sweeps_total \d+$/m);
    assert.match(text, /^toolenv_episode_sweep_seconds_total [0-9.e-]+$/m);
    for (const line of text.split('\n'))
      if (line && !line.startsWith('#')) assert.match(line, /^[a-z_]+(\{[^}]*\})? [-+0-9.e]+$/, line);
  });

  it('GET /metrics counts the live episodes', async () => {
    const live = async () =>
      Number(/^toolenv_episodes_live (\d+)$/m.exec(await (await fetch(`${server.url}/metrics`)).text())![1]);
    const before = await live();
    const created = (await (await postJson(`${server.url}/v1/episodes`, {})).json()) as { id: string };
    assert.equal(await live(), before + 1);
    await fetch(`${server.url}/v1/episodes/${created.id}`, { method: 'DELETE' });
    assert.equal(await live(), before);
  });

  it('GET /apis lists the APIs', async () => {
    const body = (await (await fetch(`${server.url}/apis`)).json()) as { apis: { api_id: string }[] };
    assert.deepEqual(body.apis, [
      {
        api_id: 'petstore.test',
        title: 'Petstore',
        provider: 'petstore.test',
        category: 'ecommerce',
        format: 'openapi',
      },
    ]);
  });
});

describe('error injection through the server', () => {
  it('--error-rate 1 injects an error on every valid call, marked by x-toolenv-error', async () => {
    const server = await startTestServer({ errorRate: 1, seed: 7 });
    try {
      for (let i = 0; i < 6; i++) {
        const response = await postJson(`${server.url}/v1/tools/weather_forecast/call`, {
          arguments: { city: `c${i}` },
        });
        const kind = response.headers.get('x-toolenv-error');
        assert.ok(kind && ['rate_limit', 'network', 'timeout', 'auth'].includes(kind), String(kind));
        assert.ok(response.status >= 400);
        assert.equal(response.headers.get('x-toolenv-source'), 'rule');
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        await response.text();
      }
      // Invalid arguments are answered by the Rule layer before injection.
      const invalid = await postJson(`${server.url}/v1/tools/weather_forecast/call`, { arguments: {} });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.headers.get('x-toolenv-error'), null);
    } finally {
      await server.close();
    }
  });
});
