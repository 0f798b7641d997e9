/** `toolenv tasks stats`: the counts of a task file, and the command as a user runs it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadTasks } from '../../src/eval/load.js';
import { packageRoot } from '../../src/paths.js';
import { libraryCategories, taskStats } from '../../src/tasks/stats.js';
import { LibraryStore } from '../../src/library/store.js';
import { tempDir } from '../fixtures/tools.js';
import { writeEvalLibrary, writeText, writeToolbenchQueries } from '../eval/fixture.js';
import { jsonl } from '../eval/formats-fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

const ids = (n: number) => Array.from({ length: n }, (_, i) => `tool_${i}`);

/** Own tasks with 0, 1, 2, 3 and 5 reference tools, two sources, answers, tool sets and seeds. */
const ownFile = () =>
  writeText(
    'tasks.jsonl',
    jsonl(
      { id: 'a', query: 'q', meta: { source: 'synth' }, answer: 'x', seed: 1 },
      { id: 'b', query: 'q', reference_tools: ids(1), meta: { source: 'synth' }, tools: ids(2), seed: 2 },
      {
        id: 'c',
        query: 'q',
        reference_tools: ids(2),
        answer: ['x', 'y'],
        expect: [{ assert: 'count', api: 'a', collection: '/c', count: 0 }],
      },
      { id: 'd', query: 'q', reference_tools: ids(3), meta: { source: 3 } },
      { id: 'e', query: 'q', reference_tools: ids(5), meta: { split: 'I1' } },
    ),
  );

test(
  'counts by source, reference tools per task, answers, ' +
    'tool sets, seeds; categories from a lookup, unknown ones apart',
  () => {
    const file = loadTasks(ownFile());
    const categories: Record<string, string> = { tool_0: 'weather', tool_1: 'finance', tool_2: 'finance' };
    const stats = taskStats(file, (reference) => ('id' in reference ? categories[reference.id] : undefined));
    assert.deepEqual(stats, {
      file: file.file,
      format: 'own',
      tasks: 5,
      // A source that is not a string counts as the format.
      sources: { own: 3, synth: 2 },
      tools_per_task: { '0': 1, '1': 1, '2': 1, '3': 1, '4+': 1 },
      references: 11,
      categories: { finance: 5, weather: 4 },
      unknown_references: 2,
      with_answer: 2,
      with_expect: 1,
      with_tools: 1,
      with_seed: 2,
    });
    const bare = taskStats(file);
    assert.deepEqual([bare.categories, bare.unknown_references], [null, null]);
  },
);

test("a library's categories for ToolBench names, mapped as eval maps them", async () => {
  const dir = await writeEvalLibrary();
  const file = loadTasks(writeToolbenchQueries());
  const store = LibraryStore.open(dir);
  try {
    const stats = taskStats(file, await libraryCategories(store, file));
    // 11 references, 2 of them (Lost Tool, Skyscanner) in no library tool; the rest by their tools' library categories.
    assert.equal(stats.references, 11);
    assert.equal(stats.unknown_references, 2);
    assert.deepEqual(stats.categories, { weather: 4, finance: 3, ecommerce: 1, news_media: 1 });
    assert.equal(stats.with_tools, 6, 'every query has an api_list');
    assert.deepEqual(stats.tools_per_task, { '0': 0, '1': 2, '2': 3, '3': 1, '4+': 0 });
  } finally {
    store.close();
  }
});

function toolenv(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TOOLENV_DEBUG: '', ...env },
  });
}

test(
  'toolenv tasks stats: --json ends with the summary, ' +
    'text shows a table and charts, bad input is a one-line usage error',
  async () => {
    const library = await writeEvalLibrary();
    const queries = writeToolbenchQueries();
    const json = toolenv(['tasks', 'stats', queries, '--library', library, '--json']);
    assert.equal(json.status, 0, json.stderr);
    const lines = json.stdout.trimEnd().split('\n');
    const summary = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
    assert.deepEqual(
      [summary.format, summary.tasks, summary.library, summary.unknown_references],
      ['toolbench', 6, library, 2],
    );
    assert.deepEqual(summary.sources, { toolbench: 6 });

    const text = toolenv(['tasks', 'stats', queries, '--library', library]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /\| tasks \| 6 \|/);
    assert.match(text.stdout, /reference tools per task:\n0 +0 \n1 +2 █+/);
    assert.match(text.stdout, /reference tools by category:\n/);

    // No library at the default place: counted without categories.
    const bare = toolenv(['tasks', 'stats', queries, '--json'], { TOOLENV_LIBRARY: join(tempDir(), 'none') });
    assert.equal(bare.status, 0, bare.stderr);
    const last = JSON.parse(bare.stdout.trimEnd().split('\n').pop()!) as Record<string, unknown>;
    assert.deepEqual([last.categories, last.library], [null, null]);

    const bad = writeText('bad.jsonl', jsonl({ id: 'a', query: 'q' }, { id: 'b' }));
    const cases: [string[], RegExp][] = [
      [['tasks', 'stats', bad, '--json'], /bad\.jsonl:2: task \/query is required/],
      [['tasks', 'stats', '/nonexistent/tasks.jsonl'], /cannot read task file \/nonexistent\/tasks\.jsonl: ENOENT/],
      [
        ['tasks', 'stats', queries, '--format', 'csv'],
        /--format must be one of own, toolbench, bfcl, apibank, mcp, got "csv"/,
      ],
      [['tasks', 'stats', queries, '--format', 'own'], /queries\.json:2: task/],
      [['tasks', 'stats', queries, '--library', join(tempDir(), 'none')], /no library at .*none$/],
    ];
    for (const [args, message] of cases) {
      const run = toolenv(args);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      const errors = run.stderr.trimEnd().split('\n');
      assert.equal(errors.length, 1, run.stderr);
      assert.match(errors[0]!, /^toolenv: /);
      assert.match(errors[0]!, message);
    }
  },
);
