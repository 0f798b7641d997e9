import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiRecord } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { readUpstreamMap } from '../../src/simulator/upstream/base-urls.js';
import type { UpstreamLogLine } from '../../src/simulator/upstream/log.js';
import type { UpstreamSettings } from '../../src/simulator/upstream/upstream.js';
import { freePort } from '../../src/server/free-port.js';
import { postgresSkip, startPostgres, type TestPostgres } from '../fixtures/postgres.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';
import { expectProblem, postJson, startTestServer } from './helpers.js';

/** What the real API saw of one request. */
interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A real HTTP API on 127.0.0.1 standing in for petstore.test: it keeps every request and answers like the real one
 * would.
 */
async function startRealApi(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const path = new URL(request.url!, 'http://x').pathname;
      if (path.startsWith('/slow/')) return;
      const pet = /^\/v1\/pets\/(\d+)$/.exec(path);
      if (request.method === 'GET' && pet) {
        if (pet[1] === '404') return json(response, 404, { message: 'Pet not found' });
        if (pet[1] === '503') return json(response, 503, { message: 'try later' }, { 'retry-after': '30' });
        if (pet[1] === '418') return void response.writeHead(418, { 'content-type': 'text/plain' }).end("I'm a teapot");
        return json(response, 200, { id: Number(pet[1]), name: 'Real Rex', status: 'available', born: '2020-01-01' });
      }
      if (request.method === 'DELETE' && pet) return void response.writeHead(204).end();
      if (request.method === 'POST' && path === '/v1/pets') return json(response, 201, { id: 99, ...JSON.parse(body) });
      json(response, 404, { message: `no route ${request.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(
  response: import('node:http').ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** The petstore API with the API keys its document declares: a header one and a query one. */
const keyedApi: ApiRecord = {
  ...petstoreApi,
  document: {
    ...(petstoreApi.document as object),
    components: {
      securitySchemes: {
        header_key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        query_key: { type: 'apiKey', in: 'query', name: 'api_key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  },
};

const callUrl = (server: RunningServer, tool: string) => `${server.url}/v1/tools/${tool}/call`;

function readLog(file: string): UpstreamLogLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as UpstreamLogLine);
}

describe('upstream: record, replay, passthrough against a real API on loopback', () => {
  let real: Awaited<ReturnType<typeof startRealApi>>;
  let library: string;
  let cache: string;
  let mapFile: string;
  const dir = tempDir('toolenv-upstream-');
  const servers: RunningServer[] = [];

  before(async () => {
    real = await startRealApi();
    library = writeFixtureLibrary(petstoreTools, [keyedApi]);
    cache = join(dir, 'responses.db');
    mapFile = join(dir, 'map.json');
    writeFileSync(mapFile, JSON.stringify({ 'petstore.*': `${real.url}/v1` }));
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await real.close();
  });

  async function serve(
    upstream: Omit<UpstreamSettings, 'map'> & { map?: string },
    options: Parameters<typeof startTestServer>[0] = {},
  ): Promise<RunningServer> {
    const server = await startTestServer({
      library,
      cache,
      errorRate: 0,
      upstream: { ...upstream, map: readUpstreamMap(upstream.map ?? mapFile) },
      ...options,
    });
    servers.push(server);
    return server;
  }

  it(
    'record forwards a valid call, answers the real body as source real, ' +
      'stores it over a simulated entry, and logs the differences',
    async () => {
      const log = join(dir, 'record.jsonl');
      const server = await serve({ mode: 'record', log });
      // What the simulator had cached for the call before: the recording replaces it.
      await server.simulator.cache!.put(
        'petstore_test__getPetById',
        { petId: 7 },
        { status: 200, body: { id: 7, name: 'Sim' }, source: 'synth' },
      );
      const before = real.received.length;

      const response = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 7 } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-toolenv-source'), 'real');
      assert.deepEqual(await response.json(), { id: 7, name: 'Real Rex', status: 'available', born: '2020-01-01' });
      assert.equal(real.received.length, before + 1);
      assert.equal(real.received.at(-1)!.method, 'GET');
      assert.equal(real.received.at(-1)!.url, '/v1/pets/7');

      const stored = await server.simulator.cache!.getText('petstore_test__getPetById', { petId: 7 });
      assert.equal(stored?.source, 'real');
      assert.deepEqual(JSON.parse(stored!.text), { id: 7, name: 'Real Rex', status: 'available', born: '2020-01-01' });

      // A body goes out as the operation's JSON; a real 404 is an answer too, recorded;
      // a 503 is passed on, not recorded.
      const created = await postJson(callUrl(server, 'petstore_test__addPet'), {
        arguments: { name: 'Tom', status: 'sold' },
      });
      assert.equal(created.status, 201);
      assert.deepEqual(JSON.parse(real.received.at(-1)!.body), { name: 'Tom', status: 'sold' });
      assert.equal(real.received.at(-1)!.headers['content-type'], 'application/json');
      const missing = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 404 } });
      assert.equal(missing.status, 404);
      assert.deepEqual(await missing.json(), { message: 'Pet not found' });
      assert.equal(
        (await server.simulator.cache!.getText('petstore_test__getPetById', { petId: 404 }))?.source,
        'real',
      );
      const down = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 503 } });
      assert.equal(down.status, 503);
      assert.equal(down.headers.get('x-toolenv-source'), 'real');
      assert.equal(down.headers.get('retry-after'), '30', "the API's own Retry-After is passed on");
      const teapot = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 418 } });
      assert.equal(teapot.status, 418);
      assert.equal(teapot.headers.get('content-type'), 'text/plain');
      assert.equal(await teapot.text(), "I'm a teapot", 'a text body is passed on as text');
      assert.equal(await server.simulator.cache!.getText('petstore_test__getPetById', { petId: 503 }), undefined);

      const deleted = await postJson(callUrl(server, 'petstore_test__deletePet'), { arguments: { petId: 5 } });
      assert.equal(deleted.status, 204);
      assert.equal(real.received.at(-1)!.method, 'DELETE');

      // An invalid call never leaves the Rule layer.
      const sent = real.received.length;
      const invalid = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 'seven' } });
      await expectProblem(invalid, 400);
      assert.equal(real.received.length, sent);

      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(metrics, /toolenv_calls_total\{source="real",status="200"\} 1/);
      assert.match(metrics, /toolenv_upstream_recorded_total 5/);

      await server.close();
      const lines = readLog(log);
      assert.equal(lines.length, 6);
      const first = lines[0]!;
      assert.ok('real' in first);
      assert.equal(first.tool, 'petstore_test__getPetById');
      assert.deepEqual(first.arguments, { petId: 7 });
      assert.equal(first.request, `GET ${real.url}/v1/pets/7`);
      assert.equal(first.real.status, 200);
      assert.equal(first.real.schema_valid, true);
      // The simulated answer compared is the one the cache held.
      assert.deepEqual(first.simulated, { status: 200, source: 'cache' });
      assert.equal(first.status_match, true);
      assert.equal(first.recorded, true);
      assert.deepEqual(first.missing, ['/status', '/born']);
      assert.deepEqual(first.extra, []);
      const notFound = lines[2]!;
      assert.ok('real' in notFound);
      assert.equal(notFound.status_match, false, 'the simulator answered 200 where the API said 404');
      assert.equal(notFound.real.schema_valid, null, 'an error answer is not checked against the success schema');
      assert.equal(lines[3]!.tool, 'petstore_test__getPetById');
      assert.ok('real' in lines[3]! && lines[3].recorded === false);
    },
  );

  it(
    'replay answers recorded answers only: a hit as source real, ' +
      'a miss (or a simulated entry) as a 501 naming the tool, and never asks the API',
    async () => {
      const server = await serve({ mode: 'replay' });
      await server.simulator.cache!.put(
        'petstore_test__getPetById',
        { petId: 8 },
        { status: 200, body: { id: 8, name: 'Sim' }, source: 'synth' },
      );
      const sent = real.received.length;

      const hit = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 7 } });
      assert.equal(hit.status, 200);
      assert.equal(hit.headers.get('x-toolenv-source'), 'real');
      assert.deepEqual(await hit.json(), { id: 7, name: 'Real Rex', status: 'available', born: '2020-01-01' });
      // The REST surface replays the same recording.
      const rest = await fetch(`${server.url}/apis/petstore.test/pets/7`);
      assert.equal(rest.headers.get('x-toolenv-source'), 'real');
      assert.equal(((await rest.json()) as { name: string }).name, 'Real Rex');

      const deleted = await postJson(callUrl(server, 'petstore_test__deletePet'), { arguments: { petId: 5 } });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.headers.get('x-toolenv-source'), 'real');
      assert.equal(await deleted.text(), '');

      for (const petId of [8, 9]) {
        const miss = await expectProblem(
          await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId } }),
          501,
        );
        assert.equal(miss.title, 'No recording');
        assert.equal(miss.tool, 'petstore_test__getPetById');
        assert.match(String(miss.detail), /--upstream record/);
      }
      assert.equal(real.received.length, sent);
      assert.match(await (await fetch(`${server.url}/metrics`)).text(), /toolenv_replay_misses_total 2/);
    },
  );

  it("replay keeps error injection on: a trainer replays real answers with ToolEnv's noise", async () => {
    const server = await serve({ mode: 'replay' }, { errorRate: 1 });
    const response = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 7 } });
    assert.ok(response.headers.get('x-toolenv-error'), 'an injected error');
    await response.body?.cancel();
  });

  it('passthrough forwards and answers as source real but stores nothing; record ignores --error-rate', async () => {
    const server = await serve({ mode: 'passthrough' }, { cache: join(dir, 'passthrough.db'), errorRate: 1 });
    const response = await postJson(callUrl(server, 'petstore_test__getPetById'), { arguments: { petId: 11 } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-toolenv-source'), 'real');
    assert.equal(response.headers.get('x-toolenv-error'), null);
    assert.equal(((await response.json()) as { id: number }).id, 11);
    assert.equal(real.received.at(-1)!.url, '/v1/pets/11');
    assert.equal(await server.simulator.cache!.count(), 0);
  });

  it(
    "forwards the caller's own credentials (Authorization beside x-toolenv-key, the declared API keys), never " +
      "ToolEnv's key or other headers",
    async () => {
      const server = await serve(
        { mode: 'passthrough' },
        { cache: join(dir, 'credentials.db'), apiKey: 'toolenv-secret' },
      );
      const theirs = {
        'x-toolenv-key': 'toolenv-secret',
        authorization: 'Bearer real-token',
        'x-api-key': 'header-key',
        'x-other': 'not forwarded',
      };

      const viaCall = await postJson(
        `${callUrl(server, 'petstore_test__getPetById')}?api_key=query-key`,
        { arguments: { petId: 7, 'X-Request-Id': 'req-1' } },
        theirs,
      );
      assert.equal(viaCall.status, 200, await viaCall.text());
      const seen = real.received.at(-1)!;
      assert.equal(seen.headers.authorization, 'Bearer real-token');
      assert.equal(seen.headers['x-api-key'], 'header-key');
      assert.equal(seen.headers['x-request-id'], 'req-1', 'a header parameter travels as the tool binds it');
      assert.equal(seen.headers['x-toolenv-key'], undefined);
      assert.equal(seen.headers['x-other'], undefined);
      assert.equal(new URL(seen.url, 'http://x').searchParams.get('api_key'), 'query-key');

      const viaRest = await fetch(`${server.url}/apis/petstore.test/pets/7?api_key=rest-key`, { headers: theirs });
      assert.equal(viaRest.status, 200);
      assert.equal(real.received.at(-1)!.headers.authorization, 'Bearer real-token');
      assert.equal(new URL(real.received.at(-1)!.url, 'http://x').searchParams.get('api_key'), 'rest-key');

      // ToolEnv's key sent as Authorization is ToolEnv's: it never reaches the API.
      const ownKey = await postJson(
        callUrl(server, 'petstore_test__getPetById'),
        { arguments: { petId: 7 } },
        { authorization: 'Bearer toolenv-secret' },
      );
      assert.equal(ownKey.status, 200);
      assert.equal(real.received.at(-1)!.headers.authorization, undefined);
      const batch = await postJson(
        `${server.url}/v1/calls`,
        { calls: [{ tool: 'petstore_test__getPetById', arguments: { petId: 7 } }] },
        { authorization: 'Bearer toolenv-secret' },
      );
      assert.equal(batch.status, 200);
      assert.equal(real.received.at(-1)!.headers.authorization, undefined);
    },
  );

  it(
    'an API that cannot be reached is a 502 problem, ' +
      'one that does not answer in time a 504; neither is stored, both are logged',
    async () => {
      const closed = await freePort();
      const downMap = join(dir, 'down.json');
      writeFileSync(downMap, JSON.stringify({ 'petstore.test': `http://127.0.0.1:${closed}/v1` }));
      const log = join(dir, 'down.jsonl');
      const down = await serve({ mode: 'record', map: downMap, log }, { cache: join(dir, 'down.db') });
      const unreachable = await expectProblem(
        await postJson(callUrl(down, 'petstore_test__getPetById'), { arguments: { petId: 7 } }),
        502,
      );
      assert.equal(unreachable.title, 'Upstream unreachable');
      assert.match(String(unreachable.detail), /ECONNREFUSED/);
      assert.equal(await down.simulator.cache!.count(), 0);

      const slowMap = join(dir, 'slow.json');
      writeFileSync(slowMap, JSON.stringify({ 'petstore.test': `${real.url}/slow` }));
      const slow = await serve({ mode: 'record', map: slowMap, timeoutMs: 200 }, { cache: join(dir, 'slow.db') });
      const timedOut = await expectProblem(
        await postJson(callUrl(slow, 'petstore_test__listPets'), { arguments: {} }),
        504,
      );
      assert.equal(timedOut.title, 'Upstream timeout');
      assert.match(await (await fetch(`${slow.url}/metrics`)).text(), /toolenv_upstream_failures_total 1/);

      await down.close();
      const [line] = readLog(log);
      assert.ok(line && 'error' in line);
      assert.equal(line.error.kind, 'unreachable');
    },
  );

  it('a tool whose API has no absolute server and no map entry is answered 501 saying so', async () => {
    const relative = petstoreTools.map((tool) =>
      tool.origin.format === 'openapi' ? { ...tool, origin: { ...tool.origin, server: '/v1' } } : tool,
    );
    const emptyMap = join(dir, 'empty.json');
    writeFileSync(emptyMap, '{}');
    const server = await serve(
      { mode: 'passthrough', map: emptyMap },
      { library: writeFixtureLibrary(relative, [keyedApi]), cache: join(dir, 'relative.db') },
    );
    const body = await expectProblem(
      await postJson(callUrl(server, 'petstore_test__listPets'), { arguments: {} }),
      501,
    );
    assert.equal(body.title, 'No upstream');
    assert.match(String(body.detail), /relative server URL.*--upstream-map/);
  });
});

describe('upstream on a PostgreSQL cache shared by replicas', { skip: postgresSkip }, () => {
  let postgres: TestPostgres;
  let real: Awaited<ReturnType<typeof startRealApi>>;
  before(async () => {
    [postgres, real] = await Promise.all([startPostgres(), startRealApi()]);
  });
  after(async () => {
    await real.close();
    await postgres.stop();
  });

  it(
    'a recording replaces the simulated row every replica ' +
      'had in memory; a replay replica serves it as source real',
    async () => {
      const cache = await postgres.database();
      const library = writeFixtureLibrary(petstoreTools, [keyedApi]);
      const map = join(tempDir('toolenv-upstream-pg-'), 'map.json');
      writeFileSync(map, JSON.stringify({ 'petstore.test': `${real.url}/v1` }));
      const replay = await startTestServer({ library, cache, upstream: { mode: 'replay' } });
      const recorder = await startTestServer({
        library,
        cache,
        upstream: { mode: 'record', map: readUpstreamMap(map) },
      });
      try {
        await replay.simulator.cache!.put(
          'petstore_test__getPetById',
          { petId: 7 },
          { status: 200, body: { id: 7, name: 'Sim' }, source: 'synth' },
        );
        await expectProblem(
          await postJson(callUrl(replay, 'petstore_test__getPetById'), { arguments: { petId: 7 } }),
          501,
        );

        const recorded = await postJson(callUrl(recorder, 'petstore_test__getPetById'), { arguments: { petId: 7 } });
        assert.equal(recorded.headers.get('x-toolenv-source'), 'real');
        await recorded.body?.cancel();

        // The replacement reaches the other replica by NOTIFY: its in-memory row is dropped.
        let replayed: Response | undefined;
        for (let tries = 0; tries < 100; tries++) {
          replayed = await postJson(callUrl(replay, 'petstore_test__getPetById'), { arguments: { petId: 7 } });
          if (replayed.status === 200) break;
          await replayed.body?.cancel();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(replayed!.status, 200);
        assert.equal(replayed!.headers.get('x-toolenv-source'), 'real');
        assert.deepEqual(await replayed!.json(), { id: 7, name: 'Real Rex', status: 'available', born: '2020-01-01' });
      } finally {
        await Promise.all([replay.close(), recorder.close()]);
      }
    },
  );
});
