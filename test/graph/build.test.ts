import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildGraph } from '../../src/graph/build.js';
import type { Edge } from '../../src/graph/edge.js';
import { GraphError, openGraph } from '../../src/graph/store.js';
import { LibraryError } from '../../src/library/store.js';
import { tempDir } from '../fixtures/tools.js';
import { id, writeGraphFixtureLibrary } from './fixtures.js';

const P = (op: string) => id('petstore.test:pets', op);
const V = (op: string) => id('petstore.test:vets', op);
const C = (op: string) => id('catalog.test:shop', op);
const L = (op: string) => id('links.test:accounts', op);

const library = await writeGraphFixtureLibrary();
const report = await buildGraph(library);
const graph = openGraph(library);
const edges: Edge[] = [];
for (const op of [
  'listPets',
  'addPet',
  'findPetsByStatus',
  'getPetById',
  'updatePet',
  'deletePet',
  'listPhotos',
  'listOrders',
  'placeOrder',
  'getOrder',
  'getInventory',
])
  edges.push(...graph.edgesOf(P(op)).out);
for (const op of ['listVets', 'scheduleVisit', 'listClinics', 'getClinic']) edges.push(...graph.edgesOf(V(op)).out);
for (const op of ['listProducts', 'getLabel', 'listShipments']) edges.push(...graph.edgesOf(C(op)).out);
for (const op of ['createUser', 'getMember', 'readAudit']) edges.push(...graph.edgesOf(L(op)).out);
const edge = (src: string, dst: string) => edges.find((e) => e.src === src && e.dst === dst);

test('the graph lands in graph.db beside tools.db and knows every tool', () => {
  assert.ok(existsSync(join(library, 'graph.db')));
  assert.equal(report.tools, 21);
  assert.equal(report.stats.tools, 21);
  assert.ok(graph.has(P('getInventory')));
  assert.ok(!graph.has('nope'));
});

test('hard: a response field feeds a required parameter of the same resource', () => {
  for (const [src, dst] of [
    [P('listPets'), P('getPetById')],
    [P('findPetsByStatus'), P('deletePet')],
    [P('listPets'), P('placeOrder')],
    [P('getOrder'), P('getPetById')],
    [P('listOrders'), P('getOrder')],
    [V('listVets'), V('scheduleVisit')],
  ] as const) {
    const e = edge(src, dst);
    assert.equal(e?.kind, 'hard', `${src} → ${dst}`);
    assert.equal(e?.rule, 'dataflow', `${src} → ${dst}`);
  }
  assert.match(edge(P('getOrder'), P('getPetById'))!.evidence, /petId → path petId \(pet\.id\)/);
});

test('hard: creating a resource precedes reading, changing and deleting it', () => {
  for (const op of ['getPetById', 'updatePet', 'deletePet', 'listPhotos'])
    assert.equal(edge(P('addPet'), P(op))?.kind, 'hard', op);
  assert.match(
    edge(P('addPet'), P('deletePet'))!.evidence,
    /POST \/pets creates the pet that DELETE \/pets\/\{petId\} addresses/,
  );
  assert.equal(edge(P('placeOrder'), P('getOrder'))?.kind, 'hard');
});

test('hard: OpenAPI links, inline and through components, connect what names alone cannot', () => {
  assert.deepEqual(
    { ...edge(L('createUser'), L('getMember')) },
    {
      src: L('createUser'),
      dst: L('getMember'),
      kind: 'hard',
      rule: 'links',
      score: 1,
      evidence: 'links.GetMember: memberRef ← $response.body#/uuid',
    },
  );
  assert.equal(edge(L('createUser'), L('readAudit'))?.rule, 'links');
});

test('hard across two APIs of one provider, scored below same-API edges', () => {
  const e = edge(P('listPets'), V('scheduleVisit'));
  assert.equal(e?.kind, 'hard');
  assert.equal(e?.rule, 'provider-dataflow');
  assert.ok(e!.score < edge(V('listVets'), V('scheduleVisit'))!.score);
});

test('soft: optional inputs, list → get without a schema, write → read', () => {
  assert.deepEqual(
    [edge(P('listPets'), P('listOrders'))?.kind, edge(P('listPets'), P('listOrders'))?.rule],
    ['soft', 'optional-input'],
  );
  assert.deepEqual(
    [edge(V('listClinics'), V('getClinic'))?.kind, edge(V('listClinics'), V('getClinic'))?.rule],
    ['soft', 'list-get'],
  );
  assert.deepEqual(
    [edge(P('updatePet'), P('getPetById'))?.kind, edge(P('updatePet'), P('getPetById'))?.rule],
    ['soft', 'write-read'],
  );
  assert.equal(edge(P('addPet'), P('listPets'))?.kind, 'soft');
  // An order's petId fetches that pet (hard), but a new order only shares the reference (soft).
  assert.equal(edge(P('getOrder'), P('getPetById'))?.kind, 'hard');
  assert.deepEqual(
    [edge(P('getOrder'), P('placeOrder'))?.kind, edge(P('getOrder'), P('placeOrder'))?.rule],
    ['soft', 'shared-reference'],
  );
  assert.equal(edge(P('getOrder'), V('scheduleVisit')), undefined);
});

test('no edge where nothing flows: echoed ids, generic fields, other providers', () => {
  // getPetById takes the pet id it returns, so it feeds nothing that needs a pet id.
  assert.equal(edge(P('getPetById'), P('deletePet')), undefined);
  assert.equal(edge(P('getPetById'), P('placeOrder')), undefined);
  // The catalog's `id`, `name`, `status` and `type` are generic: they reach neither the label, nor the shipments, nor
  // the pets.
  assert.deepEqual(graph.edgesOf(C('listProducts')).out, []);
  assert.deepEqual(graph.edgesOf(C('listShipments')).in, []);
  assert.deepEqual(graph.edgesOf(C('getLabel')).in, []);
  assert.ok(
    edges.every((e) => (e.src.startsWith('catalog') ? e.dst.startsWith('catalog') : !e.dst.startsWith('catalog'))),
  );
  assert.deepEqual(graph.edgesOf(P('getInventory')), { in: [], out: [] });
  assert.ok(edges.every((e) => e.src !== e.dst));
});

test('edgesOf lists in and out edges, hard first; subgraph keeps the edges among the given tools', () => {
  const { in: into, out } = graph.edgesOf(P('getPetById'));
  assert.ok(into.some((e) => e.src === P('addPet')));
  assert.ok(out.some((e) => e.dst === P('getPetById')) === false);
  const kinds = into.map((e) => e.kind);
  assert.deepEqual(kinds, [...kinds].sort());
  const sub = graph.subgraph([
    P('addPet'),
    P('getPetById'),
    P('deletePet'),
    C('listProducts'),
    P('addPet'),
    'unknown-tool',
  ]);
  assert.deepEqual(sub.map((e) => `${e.src}>${e.dst}`).sort(), [
    `${P('addPet')}>${P('deletePet')}`,
    `${P('addPet')}>${P('getPetById')}`,
  ]);
  assert.deepEqual(graph.subgraph([]), []);
});

test('stats count the table the paper reports', () => {
  const s = graph.stats();
  assert.deepEqual(s, report.stats);
  assert.equal(s.edges, s.hard + s.soft);
  assert.equal(s.edges, edges.length);
  assert.equal(s.hard, edges.filter((e) => e.kind === 'hard').length);
  const connected = new Set(edges.flatMap((e) => [e.src, e.dst]));
  assert.equal(s.tools_with_dependency, connected.size);
  const pairs = new Set(edges.map((e) => [e.src, e.dst].sort().join('>')));
  assert.equal(s.unordered_pairs, pairs.size);
  assert.equal(s.bidirectional_pairs, edges.length - pairs.size);
  const outDegree = Math.max(...[...connected].map((t) => edges.filter((e) => e.src === t).length));
  assert.equal(s.max_out_degree, outDegree);
  assert.equal(s.mean_out_degree_connected, Math.round((edges.length / connected.size) * 100) / 100);
  assert.equal(s.cross_api_edges, edges.filter((e) => e.src.split('__')[0] !== e.dst.split('__')[0]).length);
  assert.ok(s.by_rule.links!.hard >= 2);
});

test('a rebuild replaces the graph whole; a library without a graph says how to build one', async () => {
  const again = await buildGraph(library);
  assert.deepEqual(again.stats, report.stats);
  const empty = tempDir();
  assert.throws(
    () => openGraph(empty),
    (e: unknown) => e instanceof GraphError && e instanceof LibraryError && /toolenv graph build/.test(e.message),
  );
  await assert.rejects(buildGraph(empty), LibraryError);
});
