/** `toolenv search` as a user runs it: the real bin/toolenv, spawned on a fixture library. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from './fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

function toolenv(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
}

const jsonLines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test('search --queries FILE --json: one result line per query, in order, then the summary', () => {
  const library = writeRetrievalLibrary();
  const file = join(tempDir(), 'queries.jsonl');
  const queries = ['send an email', 'weather forecast', 'delete a pet', 'zzzz', 'currency exchange rate'];
  writeFileSync(
    file,
    `${queries.map((query) => JSON.stringify({ query, note: 'extra fields are ignored' })).join('\n')}\n\n`,
  );
  const run = toolenv(['search', '--library', library, '--queries', file, '-k', '2', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const lines = jsonLines(run.stdout);
  assert.equal(lines.length, queries.length + 1);
  assert.deepEqual(
    lines.slice(0, -1).map((l) => l.query),
    queries,
  );
  const first = lines[0]!.results as {
    id: string;
    name: string;
    score: number;
    category: string;
    origin: { format: string };
  }[];
  assert.equal(first[0]!.id, 'sendEmail');
  assert.deepEqual(Object.keys(first[0]!), ['id', 'name', 'score', 'category', 'origin']);
  assert.deepEqual(lines[3]!.results, []);
  const summary = lines[lines.length - 1]!;
  assert.equal(summary.queries, 5);
  assert.equal(summary.k, 2);
  assert.equal(summary.retriever, 'bm25');
});

test('search QUERY prints a ranked list; --category narrows it', () => {
  const library = writeRetrievalLibrary();
  const run = toolenv(['search', '--library', library, 'pets', '-k', '2']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^ 1\. +[\d.]+ {2}petstore_test__\w+ {2}\[ecommerce\]/);
  assert.equal(run.stdout.trimEnd().split('\n').length, 2);
  const weather = toolenv(['search', '--library', library, '--category', 'weather', 'city', '--json']);
  const lines = jsonLines(weather.stdout);
  assert.deepEqual(
    (lines[0]!.results as { category: string }[]).map((r) => r.category),
    ['weather', 'weather'],
  );
});

test('search "a" "b": each argument is one query, answered separately (human and --json)', () => {
  const library = writeRetrievalLibrary();
  const run = toolenv(['search', '--library', library, 'send an email', 'delete a pet', '-k', '1', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const lines = jsonLines(run.stdout);
  assert.deepEqual(
    lines.slice(0, -1).map((l) => [l.query, (l.results as { id: string }[])[0]!.id]),
    [
      ['send an email', 'sendEmail'],
      ['delete a pet', 'petstore_test__deletePet'],
    ],
  );
  assert.equal(lines.at(-1)!.queries, 2);
  const human = toolenv(['search', '--library', library, 'send an email', 'delete a pet', '-k', '1']);
  assert.match(human.stdout, /^# send an email\n 1\. .*sendEmail.*\n\n# delete a pet\n 1\. .*deletePet/);
});

test('search eval runs BM25 alone by default (USE takes an hour on a full library)', () => {
  const run = toolenv(['search', 'eval', '--library', writeRetrievalLibrary(), '--size', '2', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout) as { results: { retriever: string }[] };
  assert.deepEqual(
    report.results.map((r) => r.retriever),
    ['bm25'],
  );
});

test('search eval --tasks scores a ToolBench-format file against its mapped reference tools', () => {
  const library = writeRetrievalLibrary();
  const file = join(tempDir(), 'toolbench.json');
  const task = (id: number, query: string, tool: string, api: string) => ({
    query,
    query_id: id,
    api_list: [{ category_name: 'ecommerce', tool_name: tool, api_name: api }],
    'relevant APIs': [[tool, api]],
  });
  writeFileSync(
    file,
    JSON.stringify([
      task(1, 'add a new pet to the store', 'Petstore', 'addPet'),
      task(2, 'remove a pet', 'Petstore', 'deletePet'),
      task(3, 'book a flight', 'Airline', 'bookFlight'),
    ]),
  );
  const run = toolenv(['search', 'eval', '--library', library, '--tasks', file, '--json']);
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout) as {
    format: string;
    tasks: number;
    scored: number;
    results: { retriever: string; overall: { queries: number; recall_3: number } }[];
  };
  assert.equal(report.format, 'toolbench');
  assert.deepEqual([report.tasks, report.scored], [3, 2]);
  assert.deepEqual(
    report.results.map((r) => [r.retriever, r.overall.queries, r.overall.recall_3]),
    [['bm25', 2, 1]],
  );
  const bad = toolenv(['search', 'eval', '--library', library, '--tasks', file, '--retrievers', 'hybrid-rrf']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown retriever "hybrid-rrf"/);
});

test('bad input: one line on stderr naming the problem, exit 2', () => {
  const library = writeRetrievalLibrary();
  const bad = join(tempDir(), 'bad.jsonl');
  writeFileSync(bad, '{"query":"ok"}\n{"q":"no query field"}\n');
  const cases: [string[], RegExp][] = [
    [['search', '--library', library, '--queries', bad], /bad.jsonl line 2 needs a string "query" field/],
    [
      ['search', '--library', library, '--retriever', 'magic', 'pet'],
      /--retriever must be one of bm25, dense, use, hybrid, got "magic"/,
    ],
    [
      ['search', '--library', library, '--retriever', 'dense', 'pet'],
      /needs a local ONNX model directory \(--embed-model DIR\)/,
    ],
    [['search', '--library', library], /nothing to search for/],
    [['search', '--library', library, 'pet', ' '], /query 2 is empty/],
    [['search', '--library', join(tempDir(), 'none'), 'pet'], /no library at/],
  ];
  for (const [args, message] of cases) {
    const run = toolenv(args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  }
});

test('search index --json builds the files once and then reports them current', () => {
  const library = writeRetrievalLibrary();
  const first = jsonLines(toolenv(['search', 'index', '--library', library, '--json']).stdout).at(-1)!;
  const second = jsonLines(toolenv(['search', 'index', '--library', library, '--json']).stdout).at(-1)!;
  const [built] = first.indexes as { built: boolean; tools: number; bytes: number }[];
  const [kept] = second.indexes as { built: boolean }[];
  assert.equal(built!.built, true);
  assert.equal(built!.tools, 12);
  assert.ok(built!.bytes > 0);
  assert.equal(kept!.built, false);
});
