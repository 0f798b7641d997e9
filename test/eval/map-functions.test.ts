/** Function names (BFCL, API-Bank, MCP) and tool sets mapped onto a served library that imported those functions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverLibrary } from '../../src/eval/library-client.js';
import { mapReferences } from '../../src/eval/map-references.js';
import { mappingCounts } from '../../src/eval/report.js';
import type { LoadedTask } from '../../src/eval/tasks.js';
import { startTestServer } from '../server/helpers.js';
import { writeFunctionLibrary } from './formats-fixture.js';

const task = (id: string, names: string[], extra: Partial<LoadedTask> = {}): LoadedTask => ({
  id,
  query: `query ${id}`,
  references: names.map((name) => ({ name })),
  line: 1,
  ...extra,
});

test(
  'function names map onto OpenAI- and MCP-imported tools by origin name, ' +
    'a library id, normalized names, or a server/tool tail',
  async (t) => {
    const server = await startTestServer({ library: await writeFunctionLibrary() });
    t.after(() => server.close());
    const library = serverLibrary(server.url);
    const mapped = await mapReferences(
      [
        task('bfcl', ['calculate_triangle_area', 'math.factorial']),
        task('mcp', ['get_forecast', 'weather/get_alerts', 'Get Forecast']),
        task('other', ['petstore_test__getPetById', 'cd', 'nowhere/at_all']),
      ],
      library,
    );
    const view = mapped.map((m) => m.mapping.map((r) => [r.id, r.match]));
    assert.deepEqual(view, [
      [
        ['calculate_triangle_area', 'exact'],
        // Not a valid id: the importer slugged it; the origin keeps the name.
        ['math_factorial', 'exact'],
      ],
      [
        ['get_forecast', 'exact'],
        ['get_alerts', 'exact'],
        ['get_forecast', 'normalized'],
      ],
      [
        ['petstore_test__getPetById', 'id'],
        [undefined, undefined],
        [undefined, undefined],
      ],
    ]);
    assert.deepEqual((await library.tool('math_factorial'))!.origin, { format: 'openai', name: 'math.factorial' });
    assert.deepEqual(
      mapped[1]!.task.reference_tools,
      ['get_forecast', 'get_alerts'],
      'one tool named twice is one reference tool',
    );
    assert.deepEqual(mappingCounts(mapped), {
      references: 8,
      by_id: 1,
      exact: 4,
      normalized: 1,
      ambiguous: 0,
      unmapped: 2,
    });
  },
);

test(
  "a task's tool set maps like its references: unmapped entries are left out and counted; none mapped leaves the " +
    'episode open; the seed is carried',
  async (t) => {
    const server = await startTestServer({ library: await writeFunctionLibrary() });
    t.after(() => server.close());
    const [some, none, plain] = await mapReferences(
      [
        task('some', ['get_forecast'], {
          tools: [{ name: 'get_forecast' }, { name: 'get_alerts' }, { name: 'missing_tool' }],
          seed: 9,
        }),
        task('none', [], { tools: [{ id: 'no_such_tool' }] }),
        task('plain', ['get_alerts']),
      ],
      serverLibrary(server.url),
    );
    assert.deepEqual(
      [some!.tools, some!.unmappedTools, some!.seed],
      [['get_forecast', 'get_alerts'], [{ name: 'missing_tool' }], 9],
    );
    assert.deepEqual([none!.tools, none!.unmappedTools], [undefined, [{ id: 'no_such_tool' }]]);
    assert.deepEqual([plain!.tools, plain!.unmappedTools, plain!.seed], [undefined, undefined, undefined]);
  },
);
