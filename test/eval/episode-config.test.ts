/**
 * What a task file says about its episode reaches the server: the tool set (ToolBench api_list, BFCL functions) and the
 * seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRun } from '../../src/agent/types.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { serverLibrary } from '../../src/eval/library-client.js';
import { loadTasks } from '../../src/eval/load.js';
import { mapReferences } from '../../src/eval/map-references.js';
import { episodeSeed } from '../../src/eval/seed.js';
import { tempDir } from '../fixtures/tools.js';
import { startTestServer } from '../server/helpers.js';
import { toolbenchQueries, writeEvalLibrary, writeText, writeToolbenchQueries } from './fixture.js';
import { jsonl, writeBfcl, writeFunctionLibrary } from './formats-fixture.js';

const saved = (out: string, agent: string, id: string, run = 1) =>
  JSON.parse(readFileSync(join(out, 'trajectories', agent, `${id}.run${run}.json`), 'utf8')) as AgentRun;

test(
  "ToolBench api_list entries become the episode's tools, " + 'mapped like the references; unmapped ones are counted',
  async (t) => {
    const server = await startTestServer({ library: await writeEvalLibrary() });
    t.after(() => server.close());
    const query = structuredClone(toolbenchQueries[1]!);
    query.api_list.push({
      ...query.api_list[0]!,
      tool_name: 'Skyscanner Flights',
      api_name: 'Search Flights',
      category_name: 'Travel',
    });
    const tasks = writeToolbenchQueries([query]);
    const library = serverLibrary(server.url);
    const [mapped] = await mapReferences(loadTasks(tasks).tasks, library);
    const out = tempDir();
    const logged: string[] = [];
    const report = await evaluate({
      tasks,
      server: server.url,
      library: '',
      agents: ['paraact'],
      policy: 'heuristic',
      errorRate: 0,
      out,
      log: (line) => logged.push(line),
    });

    assert.equal(report.tasks.scored, 1);
    const trajectory = saved(out, 'paraact', '102').trajectory!;
    assert.equal(trajectory.tools!.length, 2);
    assert.deepEqual(trajectory.tools, mapped!.tools);
    const origins = await Promise.all(trajectory.tools!.map(async (id) => (await library.tool(id))!.origin));
    assert.deepEqual(origins, [
      { format: 'toolbench', category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Realtime Weather API' },
      { format: 'toolbench', category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Forecast Weather API' },
    ]);
    assert.ok(
      trajectory.working_set.every((id) => trajectory.tools!.includes(id)),
      'search finds only the episode tools',
    );
    assert.deepEqual(
      logged.filter((l) => l.includes('tool-set')),
      ['toolenv: 1 tool-set entry of 1 task(s) not in the library, left out of their episodes'],
    );
  },
);

test(
  "a task's seed is its first run's episode seed, over eval's derived one, and later runs derive from it; tasks " +
    'without one keep the derived seed',
  async (t) => {
    const server = await startTestServer({ library: await writeEvalLibrary() });
    t.after(() => server.close());
    const query = 'Find the pet with id 7 in the pet store.';
    const tasks = writeText(
      'seeded.jsonl',
      jsonl(
        { id: 'pinned', query, reference_tools: ['petstore_test__getPetById'], seed: 4242 },
        { id: 'derived', query, reference_tools: ['petstore_test__getPetById'] },
      ),
    );
    const out = tempDir();
    const report = await evaluate({
      tasks,
      server: server.url,
      library: '',
      agents: ['react'],
      policy: 'heuristic',
      runs: 2,
      seed: 1,
      errorRate: 0,
      out,
    });
    const seeds = (id: string) =>
      report.results[0]!.scores.filter((s) => s.task_id === id)
        .sort((a, b) => a.run - b.run)
        .map((s) => s.seed);
    assert.deepEqual(seeds('pinned'), [4242, episodeSeed(4242, 'pinned', 2)]);
    assert.deepEqual(seeds('derived'), [episodeSeed(1, 'derived', 1), episodeSeed(1, 'derived', 2)]);
    assert.equal(saved(out, 'react', 'pinned', 1).trajectory!.seed, 4242);

    const unseeded = await evaluate({
      tasks,
      server: server.url,
      library: '',
      agents: ['react'],
      policy: 'heuristic',
      errorRate: 0,
    });
    assert.equal(
      unseeded.results[0]!.scores.find((s) => s.task_id === 'pinned')!.seed,
      4242,
      'without --seed the task still pins its episode',
    );
  },
);

test(
  'BFCL tasks run on the imported functions: ' +
    'the offered ones as the episode tools, the ground truth as references',
  async (t) => {
    const server = await startTestServer({ library: await writeFunctionLibrary() });
    t.after(() => server.close());
    const out = tempDir();
    const report = await evaluate({
      tasks: writeBfcl(),
      server: server.url,
      library: '',
      agents: ['parallel'],
      policy: 'heuristic',
      errorRate: 0,
      out,
    });
    assert.equal(report.format, 'bfcl');
    // The multi-turn entry's cd and mkdir are no library tools.
    assert.deepEqual(
      report.tasks.unmappable.map((u) => u.id),
      ['multi_turn_base_0'],
    );
    assert.deepEqual(report.tasks.unscored, [{ id: 'old_0', line: 4 }]);
    assert.equal(report.mapping.exact, 3);
    const trajectory = saved(out, 'parallel', 'multiple_0').trajectory!;
    assert.deepEqual(trajectory.tools, ['calculate_triangle_area', 'math_factorial']);
    assert.deepEqual(trajectory.task?.reference_tools, ['math_factorial']);
    assert.equal(
      report.results[0]!.summary.finish.error,
      0,
      JSON.stringify(report.results[0]!.scores.map((s) => s.error)),
    );
  },
);

test('tasks synthesized for another --seed are said to be so: the server reports its seed on /healthz', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary(), seed: 3 });
  t.after(() => server.close());
  const query = 'Find the pet with id 7 in the pet store.';
  const tasks = writeText(
    'synth.jsonl',
    jsonl(
      {
        id: 'a',
        query,
        reference_tools: ['petstore_test__getPetById'],
        answer: 'x',
        meta: { source: 'synth', server_seed: 0 },
      },
      {
        id: 'b',
        query,
        reference_tools: ['petstore_test__getPetById'],
        answer: 'x',
        meta: { source: 'synth', server_seed: 3 },
      },
    ),
  );
  const lines: string[] = [];
  await evaluate({
    tasks,
    server: server.url,
    library: '',
    agents: ['react'],
    policy: 'heuristic',
    errorRate: 0,
    log: (line) => lines.push(line),
  });
  assert.deepEqual(
    lines.filter((l) => /synthesized for a server/.test(l)),
    [
      'toolenv: 1 task(s) were synthesized for a server with --seed 0, and this one runs --seed 3: their expected ' +
        'answers will not hold (serve with that seed, or synthesize with --server-seed 3)',
    ],
  );
});
