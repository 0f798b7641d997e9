import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { coverageOf, feedbackOf } from '../../src/coldstart/coverage.js';
import { qualityProblems, sequencingProblems } from '../../src/coldstart/filter.js';
import { generateColdStart, parseRoles } from '../../src/coldstart/generate.js';
import { runColdStart, MAX_DAG_REPAIRS } from '../../src/coldstart/loop.js';
import { offlineRoles } from '../../src/coldstart/roles-offline.js';
import type { Roles } from '../../src/coldstart/roles.js';
import { answerTurn, executionTurn, explorationTurn } from '../../src/coldstart/serialize.js';
import type { ColdStartRun, DagCall, PlannerOutput, RoundRecord, SharedState } from '../../src/coldstart/types.js';
import { packageRoot } from '../../src/paths.js';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import type { TrainTask } from '../../src/train/tasks.js';
import { tempDir } from '../fixtures/tools.js';
import { synthLibrary } from '../tasks/fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const toolenv = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
/** The CLI against this process's server: run asynchronously, so that the server can answer it. */
function toolenvAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOOLENV_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

let server: RunningServer;
let library: string;
let tasks: TrainTask[];
const NOTE: TrainTask = { id: 'note', query: 'Create a note titled "Groceries", then get that note by its id.' };

before(async () => {
  library = await synthLibrary();
  server = await startServer({
    library,
    cache: join(tempDir('toolenv-cs-'), 'cache.db'),
    responders: [examplesResponder, synthResponder],
    port: 0,
    log: () => {},
  });
  const out = join(tempDir('toolenv-cs-tasks-'), 'tasks.jsonl');
  const run = toolenv(['tasks', 'synth', '--library', library, '--count', '8', '--seed', '2', '--out', out, '--json']);
  assert.equal(run.status, 0, run.stderr);
  tasks = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TrainTask);
});
after(() => server.close());

const loop = (roles: Roles, over: Partial<Parameters<typeof runColdStart>[1]> = {}) => ({
  server: server.url,
  roles,
  maxRounds: 12,
  errorRate: 0,
  ...over,
});

/** Replays a run's assistant turns in a new episode with its seed: every observation must come back the same. */
async function replay(run: ColdStartRun, errorRate: number): Promise<void> {
  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json() as Promise<Record<string, any>>;
  const task = tasks.find((t) => t.id === run.task_id) ?? NOTE;
  const created = await post('/v1/episodes', {
    task: {
      id: task.id,
      query: task.query,
      ...(task.reference_tools ? { reference_tools: task.reference_tools } : {}),
      ...(task.answer ? { answer: task.answer } : {}),
    },
    seed: run.seed,
    protocol: 'paraact',
    max_turns: 15,
    max_steps: 15,
    error_rate: errorRate,
  });
  assert.deepEqual(created.messages, run.messages.slice(0, 2));
  for (let i = 2; i < run.messages.length; i += 2) {
    const turn = await post(`/v1/episodes/${created.id}/turns`, { text: run.messages[i]!.content });
    const next = run.messages[i + 1];
    if (next) assert.equal(turn.observation.content, next.content, `turn ${i / 2}'s observation`);
    else assert.equal(turn.finish, 'answer');
  }
}

test(
  'offline generation over synthesized tasks: ' + 'accepted trajectories that replay exactly through the server',
  async () => {
    const out = tempDir('toolenv-cs-out-');
    const summary = await generateColdStart({
      tasks,
      server: server.url,
      roles: parseRoles('offline'),
      model: { temperature: 0.7, maxTokens: 2048 },
      concurrency: 3,
      out,
      maxRounds: 12,
      errorRate: 0.05,
      seed: 1,
    });
    assert.equal(summary.tasks, tasks.length);
    assert.equal(summary.accepted + summary.rejected, tasks.length);
    assert.ok(summary.accepted >= 2, JSON.stringify(summary));
    const rejected = readFileSync(summary.files.rejected, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { reasons: string[] });
    assert.ok(rejected.every((r) => r.reasons.length > 0));
    const lines = readFileSync(summary.files.sft, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ColdStartRun);
    assert.equal(lines.length, summary.accepted);
    assert.ok(
      summary.stats.turns >= 3 && summary.stats.plans >= 2 && summary.stats.calls >= 1,
      JSON.stringify(summary.stats),
    );
    for (const line of lines as (ColdStartRun & { task: TrainTask })[]) {
      assert.deepEqual(
        line.task,
        tasks.find((t) => t.id === line.task_id),
        'each record carries its task',
      );
      assert.equal(line.messages[0]!.role, 'system');
      assert.ok(line.messages.at(-1)!.content.includes('<answer>'));
      await replay(line, 0.05);
    }
  },
);

/** Roles that answer from a script, the rest offline: each test drives one rule. */
function scripted(plans: PlannerOutput[], over: Partial<Roles> = {}): Roles & { calls: { repair: boolean }[] } {
  const base = offlineRoles();
  const calls: { repair: boolean }[] = [];
  return {
    ...base,
    calls,
    planner: async (input) => {
      calls.push({ repair: input.repair !== undefined });
      const next = plans.shift();
      return next ?? (await base.planner(input));
    },
    ...over,
  };
}

const explore: PlannerOutput = {
  mode: 'exploration',
  reasoning: 'Two capabilities, no tools yet.',
  slots: [
    { capability: 'create a note', query: 'create a note' },
    { capability: 'get a note by id', query: 'get a note by id' },
  ],
};
const dag: DagCall[] = [
  { id: 'c1', tool: 'notes_test__createNote', arguments: { title: 'Groceries' } },
  { id: 'c2', tool: 'notes_test__getNote', arguments: { noteId: { $ref: 'c1.body.id' } }, depends_on: ['c1'] },
];

test(
  'mode transitions: exploration → execution (levels in Kahn order) ' + '→ covered, and an answer round ends the loop',
  async () => {
    const roles = scripted([explore, { mode: 'execution', reasoning: 'c2 reads the id c1 returns.', dag }]);
    const run = await runColdStart(NOTE, loop(roles));
    assert.deepEqual(
      run.rounds.map((r) => r.mode),
      ['exploration', 'execution'],
    );
    assert.equal(run.exit, 'covered');
    assert.equal(run.finish, 'answer');
    assert.deepEqual(qualityProblems(run), []);
    const turns = run.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
    assert.equal(turns.length, 4, 'explore, level 1, level 2, answer');
    assert.match(turns[1]!, /<plan>\{"phase":"execution"/);
    assert.doesNotMatch(turns[2]!, /<plan>/, 'only the first level carries the plan');
    assert.match(turns[2]!, /<tool_call>\{"id":"c2"\}<\/tool_call>/);
    assert.match(
      turns[1]!,
      /^<think>\d+ of \d+ retrieved tools fit/,
      "the Critic's verdict opens the next Planner turn",
    );
    await replay(run, 0);

    const answered = await runColdStart(
      NOTE,
      loop(scripted([explore, { mode: 'answer', reasoning: 'Nothing to call.' }])),
    );
    assert.deepEqual(
      answered.rounds.map((r) => r.mode),
      ['exploration', 'answer'],
    );
    assert.equal(answered.exit, 'answer');
  },
);

test('refine: new slots or a revised DAG, never both; two empty refines trip the stall guard', async () => {
  const both = await runColdStart(
    NOTE,
    loop(scripted([explore, { mode: 'refine', reasoning: 'x', slots: explore.slots, dag }])),
  );
  assert.match(both.rounds[1]!.invalid![0]!, /slots or a DAG, not both/);
  assert.ok(qualityProblems(both).some((p) => p.includes('schema')));

  const slots = await runColdStart(
    NOTE,
    loop(
      scripted([
        explore,
        {
          mode: 'refine',
          reasoning: 'Search wider for the reader.',
          slots: [{ capability: 'get a note by id', query: 'get a note by id', k: 5 }],
        },
      ]),
    ),
  );
  assert.equal(slots.rounds[1]!.mode, 'refine');
  assert.equal(slots.rounds[1]!.critic?.coverage.done, true);
  assert.match(slots.messages[4]!.content, /<search_tool>\{"query":"get a note by id","k":5\}<\/search_tool>/);

  const first = [dag[0]!];
  const revised = await runColdStart(
    NOTE,
    loop(
      scripted([
        explore,
        { mode: 'execution', reasoning: 'Create first.', dag: first },
        { mode: 'refine', reasoning: 'Now read it back.', dag: [dag[1]!] },
      ]),
    ),
  );
  assert.deepEqual(
    revised.rounds.map((r) => r.mode),
    ['exploration', 'execution', 'refine'],
  );
  assert.equal(revised.exit, 'covered', 'the revised DAG reads the earlier result by reference');
  assert.match(revised.messages[6]!.content, /<plan>\{"phase":"execution".*"c2"/s, 'a revised DAG is a new plan');
  await replay(revised, 0);

  const stall = await runColdStart(
    NOTE,
    loop(scripted([explore, { mode: 'refine', reasoning: 'Unsure.' }, { mode: 'refine', reasoning: 'Still unsure.' }])),
  );
  assert.equal(stall.exit, 'stall');
  assert.deepEqual(
    stall.rounds.map((r) => r.stalled ?? false),
    [false, true, true],
  );
  assert.equal(stall.finish, 'answer', 'a stall exit still answers');
  assert.equal(stall.messages.filter((m) => m.role === 'assistant').length, 2, 'stalled rounds send no turn');
});

test('DAG repair: up to two repair calls; a DAG still failing rejects the trajectory', async () => {
  const cyclic: DagCall[] = [
    { id: 'c1', tool: 'notes_test__createNote', arguments: { title: { $ref: 'c2.body.title' } } },
    { id: 'c2', tool: 'notes_test__getNote', arguments: { noteId: { $ref: 'c1.body.id' } } },
  ];
  const repairedOnce = scripted([
    explore,
    { mode: 'execution', reasoning: 'Plan.', dag: cyclic },
    { mode: 'execution', reasoning: 'Fixed.', dag },
  ]);
  const fixed = await runColdStart(NOTE, loop(repairedOnce));
  assert.equal(fixed.rounds[1]!.repairs, 1);
  assert.deepEqual(
    repairedOnce.calls.map((c) => c.repair),
    [false, false, true],
  );
  assert.deepEqual(qualityProblems(fixed), []);

  const unknownTool = [{ id: 'c1', tool: 'nope__tool', arguments: {} }];
  const broken = await runColdStart(
    NOTE,
    loop(
      scripted([
        explore,
        { mode: 'execution', reasoning: 'Plan.', dag: cyclic },
        { mode: 'execution', reasoning: 'Again.', dag: cyclic },
        { mode: 'execution', reasoning: 'Again.', dag: unknownTool },
      ]),
    ),
  );
  assert.equal(broken.rounds[1]!.repairs, MAX_DAG_REPAIRS);
  assert.match(broken.rounds[1]!.dag_errors!.join(' '), /nope__tool was not retrieved/);
  assert.ok(qualityProblems(broken).some((p) => p.includes('failed validation after 2 repair(s)')));
});

test("the Critic's coverage: missing capabilities, can_answer and done come from the labels", () => {
  const hit = (id: string) => ({ id, name: id, description: '', category: 'c', score: 1 });
  const state: SharedState = {
    task: NOTE,
    slots: [
      { capability: 'a', query: 'a', retrieved: ['t1', 't2'] },
      { capability: 'b', query: 'b', retrieved: ['t3'] },
    ],
    tools: new Map([
      ['t1', { hit: hit('t1'), slot: 0, label: 'relevant' as const }],
      ['t2', { hit: hit('t2'), slot: 0, label: 'irrelevant' as const }],
      ['t3', { hit: hit('t3'), slot: 1, label: 'irrelevant' as const }],
    ]),
    observations: [],
    coverage: { done: false, can_answer: false, missing_capabilities: [] },
  };
  assert.deepEqual(coverageOf(state, 'retrieval'), { done: true, can_answer: false, missing_capabilities: ['b'] });
  state.tools.get('t3')!.label = 'relevant';
  state.dag = [
    { id: 'c1', tool: 't1', arguments: {} },
    { id: 'c2', tool: 't3', arguments: {} },
  ];
  state.observations.push({
    id: 'c1',
    tool: 't1',
    turn: 2,
    arguments: {},
    ok: true,
    status: 200,
    body: {},
    label: 'relevant',
  });
  assert.deepEqual(
    coverageOf(state, 'execution'),
    { done: false, can_answer: false, missing_capabilities: [] },
    'c2 still to run',
  );
  state.observations.push({
    id: 'c2',
    tool: 't3',
    turn: 3,
    arguments: {},
    ok: false,
    status: 500,
    body: {},
    label: 'irrelevant',
  });
  assert.deepEqual(
    coverageOf(state, 'execution'),
    { done: true, can_answer: false, missing_capabilities: ['b'] },
    'a failed call leaves its capability missing',
  );
  state.observations[1] = { ...state.observations[1]!, ok: true, status: 200, label: 'relevant' };
  const covered = coverageOf(state, 'execution');
  assert.deepEqual(covered, { done: true, can_answer: true, missing_capabilities: [] });
  assert.equal(
    feedbackOf({ reasoning: 'Both answered.', tools: {}, observations: {} }, covered),
    'Both answered. The results suffice to answer.',
  );
});

test('serialization rules: think then action, plans not repeated, level arguments only where they differ', () => {
  assert.equal(
    explorationTurn('Critic said so.', 'Search.', [{ capability: 'x', query: 'find x' }]),
    '<think>Critic said so. Search.</think>\n<plan>{"phase":"exploration","slots":[{"capability":"x","query":"find ' +
      'x"}]}</plan>\n<search_tool>find x</search_tool>',
  );
  const layers = [['c1'], ['c2']];
  const first = executionTurn({
    feedback: undefined,
    reasoning: 'Go.',
    dag,
    layers,
    level: [dag[0]!],
    args: { c1: { title: 'Groceries' } },
    first: true,
  });
  assert.match(
    first,
    /^<think>Go\.<\/think>\n<plan>.*"layers":\[\["c1"\],\["c2"\]\]\}<\/plan>\n<tool_call>\{"id":"c1"\}<\/tool_call>$/s,
  );
  const plan = JSON.parse(/<plan>(.*)<\/plan>/s.exec(first)![1]!);
  const again = executionTurn({
    feedback: undefined,
    reasoning: 'Go.',
    dag,
    layers,
    level: [dag[0]!],
    args: { c1: { title: 'Groceries' } },
    first: true,
    inForce: plan,
  });
  assert.doesNotMatch(again, /<plan>/, 'a plan equal to the one in force is not repeated');
  const later = executionTurn({
    feedback: 'ignored',
    reasoning: 'Go.',
    dag,
    layers,
    level: [dag[1]!],
    args: { c2: { noteId: 'n-1' } },
    first: false,
  });
  assert.match(later, /<tool_call>\{"id":"c2","arguments":\{"noteId":"n-1"\}\}<\/tool_call>/);
  assert.doesNotMatch(later, /ignored/, 'the Critic folds into the first turn of a round only');
  assert.equal(answerTurn(undefined, 'Done.', ' 42 '), '<think>Done.</think>\n<answer>42</answer>');
});

test('mode sequencing: exploration first, execution after retrieval, refine after work, answer last', () => {
  const round = (mode: RoundRecord['mode'], extra: Partial<RoundRecord> = {}): RoundRecord => ({
    round: 0,
    mode,
    reasoning: 'r',
    repairs: 0,
    ...extra,
  });
  assert.deepEqual(
    sequencingProblems([round('exploration', { slots: [] }), round('execution', { dag: [] }), round('answer')]),
    [],
  );
  assert.deepEqual(sequencingProblems([round('execution', { round: 1, dag: [] })]), [
    'round 1: the first round is execution, not exploration',
    'round 1: execution before any tool was retrieved',
  ]);
  assert.deepEqual(sequencingProblems([round('refine', { round: 1 })]), [
    'round 1: the first round is refine, not exploration',
    'round 1: refine before any exploration or execution',
  ]);
  assert.deepEqual(sequencingProblems([round('answer', { round: 1 }), round('exploration', { round: 2 })]), [
    'round 1: an answer round before the last',
    'round 1: the first round is answer, not exploration',
  ]);
  assert.deepEqual(sequencingProblems([round('answer', { round: 1 })]), [
    'round 1: the first round is answer, not exploration',
  ]);
});

/** An OpenAI-compatible chat server on 127.0.0.1 that answers each role's request from a script, as a model would. */
async function scriptedModel(
  answer: (system: string, user: Record<string, any>) => unknown,
): Promise<{ url: string; close: () => Promise<void>; requests: Record<string, any>[] }> {
  const requests: Record<string, any>[] = [];
  const http: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/models') return res.end(JSON.stringify({ data: [{ id: 'scripted' }] }));
      const request = JSON.parse(body) as Record<string, any>;
      requests.push(request);
      const content = JSON.stringify(
        answer(request.messages[0].content as string, JSON.parse(request.messages[1].content as string)),
      );
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

test(
  'roles served by a real OpenAI-compatible server: ' + 'the Planner, Executor, Critic and Answerer as model calls',
  async () => {
    const model = await scriptedModel((system, user) => {
      if (system.startsWith('You are the Planner')) {
        if (user.round === 1) return { mode: 'exploration', reasoning: 'No tools yet.', slots: explore.slots };
        if (!user.dag_in_force) return { mode: 'execution', reasoning: 'Create, then read back.', dag };
        return { mode: 'answer', reasoning: 'Done.' };
      }
      if (system.startsWith('You are the Executor'))
        return { calls: user.level.map((c: Record<string, any>) => ({ id: c.id, arguments: c.planned_arguments })) };
      if (system.startsWith('You are the Critic'))
        return {
          reasoning: 'Labelled.',
          labels: user.items.map((i: Record<string, any>) => ({
            id: i.id,
            label: i.kind === 'tool' ? (i.id.startsWith('notes_test__') ? 'relevant' : 'irrelevant') : 'relevant',
          })),
        };
      return { reasoning: 'From the results.', answer: 'The note was created and read back.' };
    });
    try {
      const roles = parseRoles(`openai:scripted@${model.url}`);
      const out = tempDir('toolenv-cs-model-');
      const summary = await generateColdStart({
        tasks: [NOTE],
        server: server.url,
        roles,
        model: { temperature: 0.7, maxTokens: 2048 },
        concurrency: 1,
        out,
        maxRounds: 12,
        errorRate: 0,
        seed: 3,
      });
      assert.equal(summary.accepted, 1, readFileSync(summary.files.rejected, 'utf8'));
      const run = JSON.parse(readFileSync(summary.files.sft, 'utf8')) as ColdStartRun;
      assert.match(run.messages.at(-1)!.content, /<answer>The note was created and read back\.<\/answer>/);
      const systems = new Set(model.requests.map((r) => (r.messages[0].content as string).split('.')[0]));
      assert.deepEqual([...systems].sort(), [
        'You are the Answerer',
        'You are the Critic',
        'You are the Executor',
        'You are the Planner of a tool-using multi-agent system; you alone decide what happens next',
      ]);
      assert.ok(
        model.requests.every(
          (r) => r.temperature === 0.7 && r.max_tokens === 2048 && r.response_format?.type === 'json_schema',
        ),
      );
      await replay(run, 0);
    } finally {
      await model.close();
    }
  },
);

test(
  'toolenv sft generate: files, the statistics table, ' + 'and its output straight into train --stage sft --dry-run',
  async () => {
    const dir = tempDir('toolenv-cs-cli-');
    const taskFile = join(dir, 'tasks.jsonl');
    writeFileSync(
      taskFile,
      `${tasks
        .slice(0, 3)
        .map((t) => JSON.stringify(t))
        .join('\n')}\n`,
    );
    const run = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--server',
      server.url,
      '--out',
      join(dir, 'out'),
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /of 3 trajectories accepted/);
    assert.match(run.stdout, /\| avg\. # <tool_call> per trajectory \| [\d.]+ \|/);
    const stats = JSON.parse(readFileSync(join(dir, 'out', 'stats.json'), 'utf8'));
    assert.ok(stats.trajectories >= 2);
    const train = await toolenvAsync([
      'train',
      '--stage',
      'sft',
      '--model',
      dir,
      '--data',
      join(dir, 'out'),
      '--server',
      server.url,
      '--out',
      join(dir, 'run'),
      '--dry-run',
      '--json',
    ]);
    assert.equal(train.status, 0, train.stderr);
    assert.equal(
      JSON.parse(readFileSync(join(dir, 'run', 'train.json'), 'utf8')).sft_data,
      join(dir, 'out', 'sft.jsonl'),
    );
    // The same accepted runs as chat rows: native tool calls, a tools column, the task and seed kept.
    const chat = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--server',
      server.url,
      '--out',
      join(dir, 'chat'),
      '--format',
      'chat',
      '--json',
    ]);
    assert.equal(chat.status, 0, chat.stderr);
    const texts = readFileSync(join(dir, 'out', 'sft.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const rows = readFileSync(join(dir, 'chat', 'sft.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    assert.deepEqual(
      rows.map((r) => r.task_id).sort(),
      texts.map((t) => t.task_id).sort(),
      'the same runs accepted (written as they finish)',
    );
    for (const row of rows) {
      assert.deepEqual(
        JSON.parse(row.tools).map((f: Record<string, any>) => f.function.name),
        ['search_tool', 'call_tool'],
      );
      assert.ok(
        row.messages.some(
          (m: Record<string, any>) => m.role === 'assistant' && m.tool_calls?.[0]?.function.name === 'call_tool',
        ),
        JSON.stringify(row.messages).slice(0, 400),
      );
      assert.equal(row.messages.at(-1).role, 'assistant');
      assert.equal(row.source, 'coldstart');
    }
    const badFormat = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--server',
      server.url,
      '--format',
      'yaml',
    ]);
    assert.equal(badFormat.status, 2);
    assert.match(badFormat.stderr, /--format must be one of messages, chat/);
    const bad = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--roles',
      'planner=bogus',
      '--server',
      server.url,
    ]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--roles: a role is offline, openai:MODEL@URL or gguf:FILE/);
    const typo = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--roles',
      'planner=offline,critik=offline',
      '--server',
      server.url,
    ]);
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /unknown role "critik": the roles are planner, executor, critic, answerer/);
    const unreachable = await toolenvAsync([
      'sft',
      'generate',
      '--tasks',
      taskFile,
      '--roles',
      'openai:m@http://127.0.0.1:1',
      '--server',
      server.url,
      '--out',
      join(dir, 'none'),
    ]);
    assert.equal(unreachable.status, 1, 'every run failing is a failure, not data');
    assert.match(unreachable.stderr, /every run failed .* the first: /);
  },
);

test(
  'a role on a real local model (the tiny GGUF through node-llama-cpp): ' +
    'its answers are read or rejected with reasons, never crash the run',
  async () => {
    const { tinyModelFile } = await import('../simulator/llama-fixture.js');
    const out = tempDir('toolenv-cs-gguf-');
    const summary = await generateColdStart({
      tasks: [NOTE],
      server: server.url,
      roles: parseRoles(`planner=gguf:${tinyModelFile()}`),
      model: { temperature: 0.7, maxTokens: 64 },
      concurrency: 1,
      out,
      maxRounds: 3,
      errorRate: 0,
      seed: 5,
    });
    assert.equal(summary.accepted + summary.rejected, 1);
    if (summary.rejected === 1) {
      const rejected = JSON.parse(readFileSync(summary.files.rejected, 'utf8')) as { reasons: string[] };
      assert.ok(rejected.reasons.length > 0 && rejected.reasons.every((r) => r.length > 0));
    }
  },
);
