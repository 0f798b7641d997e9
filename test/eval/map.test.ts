import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverLibrary } from '../../src/eval/library-client.js';
import { isUnmappable, mapReferences, normalizeName } from '../../src/eval/map-references.js';
import { loadTasks } from '../../src/eval/load.js';
import { mappingCounts, taskCounts } from '../../src/eval/report.js';
import type { LoadedTask } from '../../src/eval/tasks.js';
import { startTestServer } from '../server/helpers.js';
import { writeEvalLibrary, writeToolbenchQueries } from './fixture.js';

const task = (id: string, references: LoadedTask['references']): LoadedTask => ({
  id,
  query: `query ${id}`,
  references,
  line: 1,
});

test('normalized names ignore case, spaces, underscores, punctuation and accents', () => {
  assert.equal(normalizeName('Get_User Info.'), 'getuserinfo');
  assert.equal(normalizeName('getUserInfo'), 'getuserinfo');
  assert.equal(normalizeName('Air Quality.io — Ñandú Edition'), 'airqualityionanduedition');
  assert.notEqual(normalizeName('matches/list'), normalizeName('matches/lists'));
});

test('ToolBench references map onto the served library by origin names: exact, normalized, unmapped', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const library = serverLibrary(server.url);
  const { tasks } = loadTasks(writeToolbenchQueries());
  const mapped = await mapReferences(tasks, library);
  const byId = new Map(mapped.map((m) => [m.task.id, m]));

  const realtime = (await library.tool(byId.get('101')!.task.reference_tools![0]!))!;
  assert.deepEqual(realtime.origin, {
    format: 'toolbench',
    category: 'Weather',
    tool_name: 'WeatherAPI.com',
    api_name: 'Realtime Weather API',
  });
  assert.equal(byId.get('101')!.mapping[0]!.match, 'exact');
  assert.equal(byId.get('102')!.task.reference_tools!.length, 2);

  // "currency exchange" / "Convert" are spelled differently from the tool file's "Currency Exchange" / "convert".
  const m103 = byId.get('103')!.mapping;
  assert.deepEqual(
    m103.map((m) => m.match),
    ['exact', 'normalized'],
  );
  assert.deepEqual((await library.tool(m103[1]!.id!))!.origin, {
    format: 'toolbench',
    category: 'Finance',
    tool_name: 'Currency Exchange',
    api_name: 'convert',
  });

  // An OpenAPI tool by api_id and operationId; non-ASCII ToolBench names; a reference missing from the library.
  const m105 = byId.get('105')!;
  assert.deepEqual(
    m105.mapping.map((m) => [m.id, m.match]),
    [
      ['petstore_test__getPetById', 'exact'],
      [m105.mapping[1]!.id, 'exact'],
      [undefined, undefined],
    ],
  );
  assert.equal((await library.tool(m105.mapping[1]!.id!))!.name, 'Current Air Quality (by lat/lon)');
  assert.equal(m105.task.reference_tools!.length, 2);
  assert.equal(isUnmappable(m105), false);

  // Every reference of 106 is missing: reported, never scored.
  assert.equal(isUnmappable(byId.get('106')!), true);
  assert.equal(byId.get('106')!.task.reference_tools, undefined);
  const counts = taskCounts(mapped, false);
  assert.deepEqual(counts.unmappable, [
    { id: '106', line: byId.get('106')!.line, references: ['Skyscanner Flights / Search Flights'] },
  ]);
  assert.deepEqual(counts.partially_mapped, [{ id: '105', line: m105.line, unmapped: ['Lost Tool / gone'] }]);
  assert.equal(counts.scored, 5);
  assert.deepEqual(counts.unscored, [], 'every task names reference tools');
  assert.deepEqual(mappingCounts(mapped), {
    references: 11,
    by_id: 0,
    exact: 8,
    normalized: 1,
    ambiguous: 0,
    unmapped: 2,
  });
});

test('OpenAPI tools also map by API title, tool name, METHOD /path; own-format ids must exist', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const mapped = await mapReferences(
    [
      task('title', [{ tool_name: 'petstore', api_name: 'Find pet by ID' }]),
      task('op', [{ category: 'ecommerce', tool_name: 'Petstore.Test', api_name: 'get_pet_by_id' }]),
      task('ids', [{ id: 'petstore_test__listPets' }, { id: 'no_such_tool' }]),
      task('wrong-api', [{ tool_name: 'WeatherAPI.com', api_name: 'getPetById' }]),
      task('none', []),
      task('method-path', [
        { tool_name: 'petstore.test', api_name: 'GET /store/inventory' },
        { tool_name: 'Petstore', api_name: 'get store/inventory' },
      ]),
    ],
    serverLibrary(server.url),
  );
  assert.deepEqual(
    mapped[0]!.mapping.map((m) => [m.id, m.match]),
    [['petstore_test__getPetById', 'normalized']],
  );
  assert.deepEqual(
    mapped[1]!.mapping.map((m) => [m.id, m.match]),
    [['petstore_test__getPetById', 'normalized']],
  );
  assert.deepEqual(
    mapped[2]!.mapping.map((m) => [m.id, m.match]),
    [
      ['petstore_test__listPets', 'id'],
      [undefined, undefined],
    ],
  );
  assert.deepEqual(mapped[2]!.task.reference_tools, ['petstore_test__listPets']);
  assert.equal(isUnmappable(mapped[3]!), true, 'the operation exists, but not in that API');
  assert.equal(isUnmappable(mapped[4]!), false, 'a task without references is scored (by answer, judge or fallback)');
  // An operation without an operationId, by its method and path.
  assert.deepEqual(
    mapped[5]!.mapping.map((m) => [m.id, m.match]),
    [
      ['petstore_test__get_store_inventory', 'exact'],
      ['petstore_test__get_store_inventory', 'normalized'],
    ],
  );
  assert.deepEqual(mapped[5]!.task.reference_tools, ['petstore_test__get_store_inventory']);
});

test('a server that is not there is a clear error', async () => {
  await assert.rejects(
    serverLibrary('http://127.0.0.1:9').tool('x'),
    /cannot reach the ToolEnv server at http:\/\/127\.0\.0\.1:9/,
  );
});
