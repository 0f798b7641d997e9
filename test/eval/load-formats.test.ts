/** The task loaders beyond the own format's basics: tools and seeds, BFCL, API-Bank, MCP-style sets, and detection. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTasks } from '../../src/eval/load.js';
import { TaskFileError } from '../../src/eval/tasks.js';
import { toolbenchQueries, writeText, writeToolbenchQueries } from './fixture.js';
import {
  apibankBatch,
  apibankDialog,
  apibankLevel3,
  apibankSteps,
  bfclAnswers,
  bfclEntries,
  jsonl,
  mcpTasks,
  writeBfcl,
} from './formats-fixture.js';
import { writeSources } from '../fixtures/import-sources.js';

/** Asserts that loading fails with a TaskFileError whose message matches. */
function assertTaskError(file: string, expected: RegExp, format?: Parameters<typeof loadTasks>[1]): void {
  assert.throws(
    () => loadTasks(file, format),
    (error: unknown) => error instanceof TaskFileError && expected.test(error.message),
    expected.source,
  );
}

test('own tasks carry tools and a seed; a reference outside the tools, a bad seed or tool set name the line', () => {
  const file = writeText(
    'tasks.jsonl',
    jsonl(
      {
        id: 'a',
        query: 'find pet 7',
        reference_tools: ['petstore_test__getPetById'],
        tools: ['petstore_test__getPetById', 'petstore_test__listPets'],
        seed: 42,
      },
      { id: 'b', query: 'no tools', seed: -3 },
    ),
  );
  assert.deepEqual(loadTasks(file).tasks, [
    {
      id: 'a',
      query: 'find pet 7',
      references: [{ id: 'petstore_test__getPetById' }],
      tools: [{ id: 'petstore_test__getPetById' }, { id: 'petstore_test__listPets' }],
      seed: 42,
      line: 1,
    },
    { id: 'b', query: 'no tools', references: [], seed: -3, line: 2 },
  ]);
  const cases: [unknown, RegExp][] = [
    [
      { id: 'a', query: 'q', reference_tools: ['x'], tools: ['y'] },
      /tasks\.jsonl:2: reference tool "x" is not among the task's tools/,
    ],
    [{ id: 'a', query: 'q', seed: 1.5 }, /tasks\.jsonl:2: task \/seed must be an integer/],
    [
      { id: 'a', query: 'q', seed: 2 ** 60 },
      /tasks\.jsonl:2: task \/seed must be an integer from -9007199254740991 to 9007199254740991/,
    ],
    [{ id: 'a', query: 'q', tools: [] }, /tasks\.jsonl:2: task \/tools must hold 1 to 10000 items, got 0/],
    [{ id: 'a', query: 'q', tools: ['has space'] }, /tasks\.jsonl:2: task \/tools\/0 must match/],
  ];
  for (const [task, expected] of cases)
    assertTaskError(writeText('tasks.jsonl', jsonl({ id: 'ok', query: 'q' }, task)), expected);
});

test("ToolBench queries: the api_list becomes the episode's tools, each pair once, with its category", () => {
  const { tasks } = loadTasks(writeToolbenchQueries());
  assert.deepEqual(tasks[0]!.tools, [
    { category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Realtime Weather API' },
    { category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Forecast Weather API' },
  ]);
  const file = writeText(
    'q.jsonl',
    jsonl(
      { query_id: 1, query: 'x', api_list: [toolbenchQueries[0]!.api_list[0], toolbenchQueries[0]!.api_list[0]] },
      { query_id: 2, query: 'y', api_list: [] },
    ),
  );
  const [one, two] = loadTasks(file).tasks;
  assert.equal(one!.tools!.length, 1);
  assert.equal(two!.tools, undefined, 'an empty api_list restricts nothing');
});

test(
  'BFCL: the first user message, the offered functions as tools, ' +
    'the ground truth from possible_answer/ as references',
  () => {
    const { format, tasks } = loadTasks(writeBfcl());
    assert.equal(format, 'bfcl');
    assert.deepEqual(
      tasks.map((t) => [t.id, t.query, t.references, t.tools, t.line]),
      [
        [
          'simple_0',
          'Find the area of a triangle with a base of 10 units and height of 5 units.',
          [{ name: 'calculate_triangle_area' }],
          [{ name: 'calculate_triangle_area' }],
          1,
        ],
        [
          'multiple_0',
          'What is 5 factorial?',
          [{ name: 'math.factorial' }],
          [{ name: 'calculate_triangle_area' }, { name: 'math.factorial' }],
          2,
        ],
        // Parallel calls of one function: one reference tool.
        [
          'v2_0',
          'Triangle area, base 3 and height 4.',
          [{ name: 'calculate_triangle_area' }],
          [{ name: 'calculate_triangle_area' }],
          3,
        ],
        // No possible answer for it: no references.
        ['old_0', 'Factorial of 7, please.', [], [{ name: 'math.factorial' }], 4],
        // Multi-turn: call strings per turn, no functions offered (they come from the involved classes).
        ['multi_turn_base_0', 'Go to the document folder.', [{ name: 'cd' }, { name: 'mkdir' }], undefined, 5],
      ],
    );
  },
);

test(
  'BFCL: an entry may carry its ground truth (call strings too); ' +
    'without possible_answer/ and without an id, positions name the tasks',
  () => {
    const file = writeText(
      'BFCL_v3_exec_simple.json',
      jsonl(
        {
          question: [[{ role: 'user', content: 'calc' }]],
          function: [{ name: 'calc' }],
          ground_truth: ['calc(n=20, p=0.6)'],
        },
        { question: 'plain' },
      ),
    );
    assert.deepEqual(
      loadTasks(file).tasks.map((t) => [t.id, t.references]),
      [
        ['0', [{ name: 'calc' }]],
        ['1', []],
      ],
    );
  },
);

test('malformed BFCL entries and possible answers name their file:line', () => {
  const cases: [string, RegExp][] = [
    [
      writeBfcl([bfclEntries[0], { id: 'x', function: [] }]),
      /BFCL_v3_simple\.json:2: a BFCL possible_answer entry|BFCL_v3_simple\.json:2: BFCL entry is missing "question"/,
    ],
    [
      writeBfcl([bfclEntries[0], { id: 'x', question: [[{ role: 'system', content: 'only a system prompt' }]] }]),
      /BFCL_v3_simple\.json:2: BFCL entry has no user message with content in "question"/,
    ],
    [
      writeBfcl([bfclEntries[0], { id: 'x', question: [[{ content: 'no role' }]] }]),
      /BFCL_v3_simple\.json:2: BFCL entry \/question\/0\/0 is missing "role"/,
    ],
    [
      writeBfcl([bfclEntries[0], { id: 'x', question: 'q', function: [{ description: 'no name' }] }]),
      /BFCL_v3_simple\.json:2: BFCL entry \/function\/0 is missing "name"/,
    ],
    [writeBfcl([bfclEntries[0], bfclEntries[0]]), /BFCL_v3_simple\.json:2: id "simple_0" is already used on line 1/],
    [
      writeBfcl(bfclEntries, jsonl(bfclAnswers[0], { id: 'v2_0', ground_truth: ['not a call'] })),
      /possible_answer\/BFCL_v3_simple\.json:2: ground truth "not a call" is not a call func\(args\)/,
    ],
    [
      writeBfcl(bfclEntries, jsonl(bfclAnswers[0], { id: 'v2_0' })),
      /possible_answer\/BFCL_v3_simple\.json:2: BFCL possible answer is missing "ground_truth"/,
    ],
    [
      writeBfcl(bfclEntries, `${JSON.stringify(bfclAnswers[0])}\n{"id": `),
      /possible_answer\/BFCL_v3_simple\.json:2: not JSON/,
    ],
  ];
  for (const [file, expected] of cases) assertTaskError(file, expected);
  // The possible_answer file itself is not a task file.
  const answers = `${writeBfcl().replace(/BFCL_v3_simple\.json$/, '')}possible_answer/BFCL_v3_simple.json`;
  assertTaskError(
    answers,
    /BFCL_v3_simple\.json:1: a BFCL possible_answer entry \(id, ground_truth\): pass the question file/,
  );
});

test(
  'API-Bank dialog file: one task named by the file, the first user utterance, ' +
    'gold APIs as references, ToolSearcher calls as searches',
  () => {
    const root = writeSources({ 'AddAgenda-level-1-1.jsonl': jsonl(...apibankDialog) });
    const { format, tasks } = loadTasks(`${root}/AddAgenda-level-1-1.jsonl`);
    assert.equal(format, 'apibank');
    assert.deepEqual(tasks, [
      {
        id: 'AddAgenda-level-1-1',
        query: 'Can you add a meeting to my agenda for tomorrow at 9?',
        references: [{ name: 'GetUserToken' }, { name: 'AddAgenda' }],
        meta: { searches: ['add agenda'] },
        line: 1,
      },
    ]);
    // Dialogs one per line: each a list of turns.
    const lines = loadTasks(writeText('dialogs.jsonl', jsonl(apibankDialog, apibankDialog.slice(4)))).tasks;
    assert.deepEqual(
      lines.map((t) => [t.id, t.query, t.references.length, t.line]),
      [
        ['0', apibankDialog[0]!.text, 2, 1],
        ['1', 'Username foo, password bar.', 2, 2],
      ],
    );
  },
);

test('API-Bank level-3 requirements and step samples with API-Request text', () => {
  const level3 = loadTasks(writeText('level-3.json', JSON.stringify(apibankLevel3, null, 2)));
  assert.equal(level3.format, 'apibank');
  assert.deepEqual(
    level3.tasks.map((t) => [t.id, t.query, t.references, t.meta]),
    [
      [
        '0',
        'Query meeting of John and send email reminder to john@example.com.',
        [{ name: 'QueryMeeting' }, { name: 'EmailReminder' }],
        { searches: ['QueryMeeting', 'EmailReminder'] },
      ],
      ['1', 'Calculate (5+6)*3.', [{ name: 'Calculator' }], undefined],
    ],
  );

  const steps = loadTasks(writeText('level-1-api.json', JSON.stringify(apibankSteps, null, 2)));
  assert.deepEqual(
    steps.tasks.map((t) => [t.id, t.query, t.references]),
    [
      [
        'ModifyRegistration-QueryHealthData-level-2-2',
        'Can you move my appointment to March 26th with Dr. Lee?',
        [{ name: 'ModifyRegistration' }, { name: 'QueryHealthData' }],
      ],
      ['Calculator-level-1-1', 'Can you calculate (5+6)*3 for me?', [{ name: 'Calculator' }]],
    ],
  );
  const batch = loadTasks(writeText('level-3-batch-inf.json', JSON.stringify(apibankBatch)));
  assert.deepEqual(
    batch.tasks.map((t) => [t.id, t.query, t.references, t.meta]),
    [['0', 'Query meeting of John.', [{ name: 'QueryMeeting' }], { searches: ['QueryMeeting'] }]],
  );
});

test('malformed API-Bank files name their file:line', () => {
  const root = writeSources({ 'Broken-level-1-1.jsonl': jsonl(apibankDialog[0], { role: 'API', param_dict: {} }) });
  assertTaskError(`${root}/Broken-level-1-1.jsonl`, /Broken-level-1-1\.jsonl:2: API-Bank turn is missing "api_name"/);
  const cases: [string, RegExp][] = [
    [writeText('d.jsonl', jsonl([{ role: 'AI', text: 'hello' }])), /d\.jsonl:1: API-Bank dialog has no user utterance/],
    [
      writeText('d.jsonl', jsonl(apibankDialog, [apibankDialog[0], { role: 'User', text: 3 }])),
      /d\.jsonl:2: API-Bank dialog turn 1 \/text must be string/,
    ],
    [
      writeText('d.jsonl', jsonl(apibankDialog, { role: 'User', text: 'x' })),
      /d\.jsonl:2: API-Bank dialog must be an array of turns, got object/,
    ],
    [
      writeText('l3.jsonl', jsonl(apibankLevel3[1], { requirement: 'no calls' })),
      /l3\.jsonl:2: API-Bank level-3 task is missing "apis"/,
    ],
    [
      writeText('s.jsonl', jsonl({ file: 'a.jsonl', input: 'AI: hello', expected_output: 'AI: hi' })),
      /s\.jsonl:1: API-Bank step sample has no "User:" utterance/,
    ],
    [
      writeText('s.jsonl', jsonl(apibankSteps[2], { file: 'b.jsonl', expected_output: 'x' })),
      /s\.jsonl:2: API-Bank step sample is missing "input"/,
    ],
  ];
  for (const [file, expected] of cases) assertTaskError(file, expected);
});

test('MCP-style tasks: query, question or prompt; tools/list tools as the episode set; reference names', () => {
  const { format, tasks } = loadTasks(writeText('mcp.jsonl', jsonl(...mcpTasks)));
  assert.equal(format, 'mcp');
  assert.deepEqual(tasks, [
    {
      id: 'wx-1',
      query: mcpTasks[0]!.query,
      references: [{ name: 'get_forecast' }],
      tools: [{ name: 'get_forecast' }, { name: 'get_alerts' }],
      answer: 'Paris',
      line: 1,
    },
    {
      id: '1',
      query: mcpTasks[1]!.question,
      references: [{ name: 'get_alerts' }, { name: 'get_forecast' }],
      tools: [{ name: 'get_forecast' }, { name: 'get_alerts' }],
      line: 2,
    },
    {
      id: '2',
      query: 'Alerts for Texas, please.',
      references: [{ name: 'weather/get_alerts' }],
      tools: [{ name: 'weather/get_alerts' }],
      meta: { source: 'mcp-sample' },
      line: 3,
    },
  ]);
  const cases: [unknown, RegExp][] = [
    [
      { id: 'x', query: 'q', tools: [{ name: 'a' }], reference_tools: ['b'] },
      /mcp\.jsonl:2: reference tool "b" is not among the task's tools/,
    ],
    [{ id: 'x', tools: [{ name: 'a' }] }, /mcp\.jsonl:2: MCP task is missing "query" \(or "question", "prompt"\)/],
    [
      { id: 'x', query: 'q', tools: [{ description: 'nameless' }] },
      /mcp\.jsonl:2: MCP task \/tools\/0 is missing "name"/,
    ],
    [{ id: 'wx-1', query: 'q', tools: [{ name: 'a' }] }, /mcp\.jsonl:2: id "wx-1" is already used on line 1/],
  ];
  for (const [task, expected] of cases) assertTaskError(writeText('mcp.jsonl', jsonl(mcpTasks[0], task)), expected);
});

test('detection reads the first task; --format overrides it', () => {
  // Own tasks whose tools are ids stay own; tools/list objects make an MCP task.
  assert.equal(
    loadTasks(writeText('t.jsonl', jsonl({ id: 'a', query: 'q', tools: ['x'], reference_tools: ['x'] }))).format,
    'own',
  );
  assert.equal(loadTasks(writeText('t.jsonl', jsonl({ id: 'a', query: 'q', tools: [{ name: 'x' }] }))).format, 'mcp');
  assert.equal(
    loadTasks(writeText('t.jsonl', jsonl({ id: 'a', question: [[{ role: 'user', content: 'q' }]] }))).format,
    'bfcl',
  );
  assert.equal(
    loadTasks(writeText('t.jsonl', jsonl({ id: 'a', question: 'q', function: { name: 'f' } }))).format,
    'bfcl',
  );
  assert.equal(loadTasks(writeText('t.json', JSON.stringify(apibankLevel3))).format, 'apibank');
  // Read as another format, the same file fails that format's checks.
  assertTaskError(writeText('t.jsonl', jsonl(mcpTasks[0])), /t\.jsonl:1: BFCL entry is missing "question"/, 'bfcl');
  assertTaskError(writeText('t.jsonl', jsonl(mcpTasks[0])), /t\.jsonl:1: task \/tools\/0 must be a string/, 'own');
  assertTaskError(writeBfcl(), /BFCL_v3_simple\.json:1: MCP task is missing "tools"/, 'mcp');
});
