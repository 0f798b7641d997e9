import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph } from '../../src/graph/build.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { expectProblem, searchWhenBuilt, startTestServer } from './helpers.js';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('POST /v1/search answers one query or many, in order', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const one = await searchWhenBuilt(server.url, { query: 'find a pet by its id', k: 2 });
  assert.equal(one.status, 200);
  const single = (await one.json()) as { query: string; results: { id: string; description: string }[] };
  assert.equal(single.results[0]!.id, 'petstore_test__getPetById');
  assert.equal(single.results.length, 2);
  assert.ok(
    single.results.every((hit) => hit.description.length > 0),
    JSON.stringify(single.results),
  );

  const many = await post(`${server.url}/v1/search`, {
    queries: ['weather forecast for a city', 'delete a pet'],
    k: 1,
  });
  const batch = (await many.json()) as { results: { query: string; results: { id: string }[] }[] };
  assert.deepEqual(
    batch.results.map((r) => [r.query, r.results[0]!.id]),
    [
      ['weather forecast for a city', 'weather_forecast'],
      ['delete a pet', 'petstore_test__deletePet'],
    ],
  );
});

test('bad search requests are 400 problems naming the mistake', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  assert.match(
    String((await expectProblem(await post(`${server.url}/v1/search`, {}), 400)).detail),
    /needs one of "query", "queries"/,
  );
  assert.match(
    String((await expectProblem(await post(`${server.url}/v1/search`, { query: 'x', queries: ['y'] }), 400)).detail),
    /takes one of "query", "queries", not more/,
  );
  assert.match(
    String((await expectProblem(await post(`${server.url}/v1/search`, { queries: [1] }), 400)).detail),
    /\/queries\/0 must be a string, got 1/,
  );
  assert.match(
    String((await expectProblem(await post(`${server.url}/v1/search`, { query: 'x', retriever: 'nope' }), 400)).detail),
    /nope/,
  );
  assert.match(
    String((await expectProblem(await post(`${server.url}/v1/search`, { query: 'x', top: 3 }), 400)).detail),
    /\/top is not a known member \(known: query, queries, k, retriever, category\)/,
  );
});

test('graph routes serve edges and induced subgraphs once the graph is built', async (t) => {
  const library = writeFixtureLibrary();
  const server = await startTestServer({ library });
  t.after(() => server.close());
  const missing = await expectProblem(await fetch(`${server.url}/v1/graph/petstore_test__getPetById`), 409);
  assert.equal(missing.command, 'toolenv graph build');

  await buildGraph(library);
  const fresh = await startTestServer({ library });
  t.after(() => fresh.close());
  const edges = await fetch(`${fresh.url}/v1/graph/petstore_test__getPetById`);
  assert.equal(edges.status, 200);
  const node = (await edges.json()) as { id: string; in: { src: string; dst: string }[]; out: unknown[] };
  assert.equal(node.id, 'petstore_test__getPetById');
  assert.ok(
    node.in.some((e) => e.src === 'petstore_test__addPet'),
    JSON.stringify(node.in),
  );
  await expectProblem(await fetch(`${fresh.url}/v1/graph/nope`), 404);

  const members = ['petstore_test__addPet', 'petstore_test__getPetById', 'petstore_test__deletePet', 'nope'];
  const sub = (await (await post(`${fresh.url}/v1/graph/subgraph`, { tools: members })).json()) as {
    unknown: string[];
    edges: { src: string; dst: string }[];
  };
  assert.deepEqual(sub.unknown, ['nope']);
  assert.ok(sub.edges.length > 0);
  for (const edge of sub.edges) assert.ok(members.includes(edge.src) && members.includes(edge.dst));
  const refused = await expectProblem(await post(`${fresh.url}/v1/graph/subgraph`, { tools: 'x' }), 400);
  assert.deepEqual(refused.errors, [{ path: '/tools', message: 'must be an array, got "x"' }]);
});
