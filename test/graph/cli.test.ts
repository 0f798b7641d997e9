/** `toolenv graph build|stats|show` as a user runs them: the real bin/toolenv, spawned on a fixture library. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { LibraryStore } from '../../src/library/store.js';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { id, writeGraphFixtureLibrary } from './fixtures.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const toolenv = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
const last = (stdout: string) => JSON.parse(stdout.trimEnd().split('\n').pop()!) as Record<string, any>;
const getPetById = id('petstore.test:pets', 'getPetById');
const addPet = id('petstore.test:pets', 'addPet');

const library = await writeGraphFixtureLibrary();

test('graph build --json ends with a summary; stats and show read what it wrote', () => {
  const build = toolenv(['graph', 'build', '--library', library, '--json']);
  assert.equal(build.status, 0, build.stderr);
  assert.equal(build.stderr, '', 'no progress bar when stderr is not a terminal');
  const report = last(build.stdout);
  assert.equal(report.file, join(library, 'graph.db'));
  assert.equal(report.stats.tools, 21);
  assert.ok(report.stats.hard > 0 && report.stats.soft > 0);

  const stats = toolenv(['graph', 'stats', '--library', library, '--json']);
  assert.equal(stats.status, 0, stats.stderr);
  const s = last(stats.stdout);
  for (const key of [
    'tools',
    'tools_with_dependency',
    'edges',
    'hard',
    'soft',
    'bidirectional_pairs',
    'mean_out_degree_connected',
    'max_out_degree',
    'max_in_degree',
  ]) {
    assert.equal(s[key], report.stats[key], key);
  }

  const show = toolenv(['graph', 'show', getPetById, '--library', library, '--json']);
  assert.equal(show.status, 0, show.stderr);
  const shown = last(show.stdout);
  assert.equal(shown.tool, getPetById);
  assert.ok(
    shown.in.some(
      (e: { src: string; rule: string; evidence: string }) =>
        e.src === addPet && e.rule === 'dataflow' && /creates the pet/.test(e.evidence),
    ),
  );
  assert.equal(shown.in_total, shown.in.length);
});

test("text output: the stats table and one tool's edges with rule and evidence", () => {
  assert.equal(toolenv(['graph', 'build', '--library', library]).status, 0);
  const stats = toolenv(['graph', 'stats', '--library', library]);
  assert.match(stats.stdout, /\| tools \(nodes\) \| 21 \|/);
  assert.match(stats.stdout, /\| mean out-degree \(connected\) \| \d+\.\d\d \|/);
  assert.match(stats.stdout, /\| links \| 2 \| 0 \|/);
  const show = toolenv(['graph', 'show', addPet, '--library', library, '--limit', '2']);
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /depends on \(in, 0\):\n {2}none/);
  assert.match(show.stdout, /needed by \(out, \d+\):\n {2}hard {2}0\.90 {2}\S+ +dataflow: response id → /);
  assert.equal(show.stdout.split('\n').filter((l) => l.startsWith('  hard') || l.startsWith('  soft')).length, 2);
});

test('stats say when the library was rebuilt after the graph', () => {
  const dir = tempDir();
  cpSync(join(library, 'tools.db'), join(dir, 'tools.db'));
  assert.equal(toolenv(['graph', 'build', '--library', dir]).status, 0);
  const fresh = toolenv(['graph', 'stats', '--library', dir, '--json']);
  assert.equal(last(fresh.stdout).stale, false);
  assert.equal(fresh.stderr, '');
  const store = LibraryStore.openWritable(dir);
  store.setMeta('build', JSON.stringify({ built_at: '2030-01-01T00:00:00.000Z' }));
  store.close();
  const stale = toolenv(['graph', 'stats', '--library', dir, '--json']);
  assert.equal(last(stale.stdout).stale, true);
  assert.match(stale.stderr, /rebuilt after this graph; run `toolenv graph build`/);
});

test('bad input exits 2 with one line naming what was wrong', () => {
  const cases: [string[], RegExp][] = [
    [['graph', 'show', 'no_such_tool', '--library', library], /no tool "no_such_tool" in the graph/],
    [['graph', 'show', addPet, '--library', library, '--limit', '0'], /--limit must be an integer between 1 and/],
    [['graph', 'stats', '--library', tempDir()], /no dependency graph at .*toolenv graph build/],
    [['graph', 'build', '--library', tempDir()], /no library at/],
  ];
  for (const [args, message] of cases) {
    const run = toolenv(args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  }
});
