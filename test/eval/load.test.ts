import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTasks } from '../../src/eval/load.js';
import { TaskFileError } from '../../src/eval/tasks.js';
import { toolbenchQueries, writeText, writeToolbenchQueries } from './fixture.js';

const jsonl = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

test('own JSON Lines: ids, queries, references and answers; blank lines skipped; lines kept for errors', () => {
  const file = writeText(
    'tasks.jsonl',
    jsonl(
      { id: 'a', query: 'find pet 7', reference_tools: ['petstore_test__getPetById'], answer: 'Rex' },
      '',
      { id: 'b', query: 'list pets', answer: ['rex', 'tom'], meta: { split: 'I1' } },
      { id: 'c', query: 'nothing to check' },
    ),
  );
  const { format, tasks } = loadTasks(file);
  assert.equal(format, 'own');
  assert.deepEqual(tasks, [
    { id: 'a', query: 'find pet 7', references: [{ id: 'petstore_test__getPetById' }], answer: 'Rex', line: 1 },
    { id: 'b', query: 'list pets', references: [], answer: ['rex', 'tom'], meta: { split: 'I1' }, line: 3 },
    { id: 'c', query: 'nothing to check', references: [], line: 4 },
  ]);
});

test('a byte-order mark and CRLF line ends are read like plain JSON Lines', () => {
  const file = writeText(
    'tasks.jsonl',
    `\uFEFF${JSON.stringify({ id: 'a', query: 'q' })}\r\n${JSON.stringify({ id: 'b', query: 'r' })}\r\n`,
  );
  assert.deepEqual(
    loadTasks(file).tasks.map((t) => [t.id, t.line]),
    [
      ['a', 1],
      ['b', 2],
    ],
  );
});

test('a malformed own line is an error naming file:line and what is wrong', () => {
  const cases: [string, RegExp][] = [
    [jsonl({ id: 'a', query: 'q' }, '{"id": "b", "query": }'), /tasks\.jsonl:2: not JSON/],
    [jsonl({ id: 'a', query: 'q' }, { id: 'b' }), /tasks\.jsonl:2: task \/query is required/],
    [
      jsonl({ id: 'a', query: 'q', refernce_tools: ['x'] }),
      /tasks\.jsonl:1: task \/refernce_tools is not a known member/,
    ],
    [
      jsonl({ id: 'a', query: 'q', reference_tools: ['has space'] }),
      /tasks\.jsonl:1: task \/reference_tools\/0 must match/,
    ],
    [jsonl({ id: 'a', query: 'q', answer: [] }), /tasks\.jsonl:1: task \/answer must hold at least 1 item, got 0/],
    [jsonl({ id: 'a', query: 'q', answer: 3 }), /tasks\.jsonl:1: task \/answer must be a string or an array/],
    [
      jsonl({ id: 'a', query: 'q' }, { id: 'b', query: 'q' }, { id: 'a', query: 'again' }),
      /tasks\.jsonl:3: task id "a" is already used on line 1/,
    ],
    [jsonl('[1, 2]'), /task must be an object/],
    ['\n\n', /holds no tasks/],
  ];
  for (const [text, expected] of cases) {
    const file = writeText('tasks.jsonl', text);
    assert.throws(
      () => loadTasks(file),
      (error: unknown) => error instanceof TaskFileError && expected.test(error.message),
      text,
    );
  }
  assert.throws(
    () => loadTasks('/nonexistent/tasks.jsonl'),
    /cannot read task file \/nonexistent\/tasks\.jsonl: ENOENT/,
  );
});

test("own tasks' expect: state assertions load as written; a wrong one is refused with a pointer to its member", () => {
  const expect = [
    { assert: 'exists', api: 'petstore.test', collection: '/pets', where: { name: 'Rex' }, matching: { tag: '^do' } },
    { assert: 'count', api: 'petstore.test', collection: '/pets', count: 1 },
    { assert: 'deleted', api: 'petstore.test', collection: '/pets', id: 7 },
    { assert: 'absent', api: 'petstore.test', collection: '/pets', where: { name: 'Tom' } },
  ];
  const file = writeText('tasks.jsonl', jsonl({ id: 'w', query: 'adopt Rex', expect }));
  assert.deepEqual(loadTasks(file).tasks[0]!.expect, expect);
  const one = (assertion: unknown) => jsonl({ id: 'w', query: 'q', expect: [expect[0], assertion] });
  const cases: [string, RegExp][] = [
    [one({ assert: 'exist', api: 'a', collection: '/c' }), /task \/expect\/1\/assert must be one of exists, absent/],
    [one({ assert: 'count', api: 'a', collection: '/c' }), /task \/expect\/1\/count is required/],
    [one({ assert: 'count', api: 'a', collection: '/c', count: -1 }), /\/expect\/1\/count must be an integer from 0/],
    [one({ assert: 'deleted', api: 'a', collection: '/c' }), /task \/expect\/1\/id is required/],
    [one({ assert: 'exists', api: 'a', collection: 'c' }), /\/expect\/1\/collection must match \^\/, like "\/v1/],
    [one({ assert: 'absent', api: 'a', collection: '/c', wher: {} }), /\/expect\/1\/wher is not a known member/],
    [one({ assert: 'exists', api: 'a', collection: '/c', matching: { n: '(' } }), /\/expect\/1\/matching\/n must/],
    [jsonl({ id: 'w', query: 'q', expect: [] }), /task \/expect must hold 1 to 100 items, got 0/],
  ];
  for (const [text, expected] of cases)
    assert.throws(
      () => loadTasks(writeText('tasks.jsonl', text)),
      (error: unknown) => error instanceof TaskFileError && expected.test(error.message),
      text,
    );
});

test('ToolBench queries (a JSON array) load with their relevant APIs and the categories api_list names', () => {
  const { format, tasks } = loadTasks(writeToolbenchQueries());
  assert.equal(format, 'toolbench');
  assert.deepEqual(
    tasks.map((t) => t.id),
    ['101', '102', '103', '104', '105', '106'],
  );
  assert.equal(tasks[0]!.query, toolbenchQueries[0]!.query);
  assert.deepEqual(tasks[1]!.references, [
    { category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Realtime Weather API' },
    { category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Forecast Weather API' },
  ]);
  // A relevant API the api_list does not list has no category.
  assert.deepEqual(tasks[4]!.references[2], { tool_name: 'Lost Tool', api_name: 'gone' });
  // Each element's line in the pretty-printed array.
  assert.equal(tasks[0]!.line, 2);
  assert.ok(tasks[1]!.line > tasks[0]!.line);
});

test('ToolBench queries as JSON Lines are detected too; relevant_apis and duplicate pairs are read once', () => {
  const file = writeText(
    'queries.jsonl',
    jsonl(
      {
        query_id: 'x1',
        query: 'weather',
        relevant_apis: [
          ['WeatherAPI.com', 'Realtime Weather API'],
          ['WeatherAPI.com', 'Realtime Weather API'],
        ],
      },
      { query_id: 2, query: 'no references' },
    ),
  );
  const { format, tasks } = loadTasks(file);
  assert.equal(format, 'toolbench');
  assert.deepEqual(
    tasks.map((t) => [t.id, t.references.length, t.line]),
    [
      ['x1', 1, 1],
      ['2', 0, 2],
    ],
  );
});

test('malformed ToolBench queries name the line of the array element and what is wrong', () => {
  const broken = structuredClone(toolbenchQueries.slice(0, 3)) as Record<string, unknown>[];
  broken[2]!['relevant APIs'] = [['only a tool name']];
  const file = writeToolbenchQueries(broken);
  const line = loadTasks(writeToolbenchQueries(toolbenchQueries.slice(0, 3))).tasks[2]!.line;
  assert.throws(
    () => loadTasks(file),
    new RegExp(`queries\\.json:${line}: ToolBench query /relevant APIs/0 must NOT have fewer than 2 items`),
  );

  const noId = writeText('q.json', JSON.stringify([{ query: 'x', api_list: [] }]));
  assert.throws(() => loadTasks(noId), /q\.json:1: ToolBench query is missing "query_id"/);
  const duplicate = writeText(
    'q.json',
    JSON.stringify([
      { query_id: 1, query: 'x' },
      { query_id: '1', query: 'y' },
    ]),
  );
  assert.throws(() => loadTasks(duplicate), /query_id "1" is already used on line 1/);
  const syntax = writeText('q.json', '[\n{"query_id": 1, "query": "x"},\n{"query_id" 2}\n]');
  assert.throws(() => loadTasks(syntax), /q\.json:3: not JSON/);
  assert.throws(
    () => loadTasks(writeText('q.json', '{"query_id": 1}')),
    /q\.json:1: ToolBench query is missing "query"/,
  );
});

test('--format overrides detection: ToolBench queries read as own tasks fail the task schema', () => {
  const file = writeToolbenchQueries();
  assert.equal(loadTasks(file, 'toolbench').format, 'toolbench');
  assert.throws(() => loadTasks(file, 'own'), /queries\.json:2: task \/id is required/);
});
