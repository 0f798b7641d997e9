import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openGraph } from '../../src/graph/store.js';
import { packageRoot } from '../../src/paths.js';
import { queryProblem, synthesizeTasks, type SynthOptions } from '../../src/tasks/synth/run.js';
import { chooseAnswer } from '../../src/tasks/synth/answer.js';
import { synthArguments } from '../../src/tasks/synth/arguments.js';
import { action, templateQuery } from '../../src/tasks/synth/phrase.js';
import { writeGraph } from '../../src/graph/store.js';
import { petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';
import { synthParts } from './fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const toolenv = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });

async function synth(over: Partial<SynthOptions> = {}) {
  const parts = await synthParts();
  const graph = openGraph(parts.dir);
  try {
    return await synthesizeTasks({
      store: parts.store,
      graph,
      simulator: parts.simulator,
      count: 12,
      seed: 1,
      minTools: 1,
      maxTools: 3,
      ...over,
    });
  } finally {
    graph.close();
    parts.close();
  }
}

describe('task synthesis', () => {
  it(
    'makes every kind: single calls, ' + 'chains along hard edges with the link bound, independent sets, mixes',
    async () => {
      const report = await synth({ count: 24, minTools: 1, maxTools: 3 });
      assert.equal(report.tasks.length, 24);
      assert.deepEqual(report.strata, { 1: 8, 2: 8, 3: 8 });
      assert.ok(
        report.kinds.single === 8 && report.kinds.chain > 0 && report.kinds.parallel > 0 && report.kinds.mix > 0,
        JSON.stringify(report.kinds),
      );
      for (const task of report.tasks) {
        assert.equal(task.meta.tools, task.meta.calls.length);
        assert.equal(
          task.answer!.length,
          task.meta.kind === 'parallel' ? task.meta.tools : task.meta.kind === 'mix' ? 2 : 1,
        );
        for (const id of task.reference_tools)
          assert.ok(!task.query.toLowerCase().includes(id.toLowerCase()), `${task.id} names ${id}`);
        for (const call of task.meta.calls) {
          for (const value of Object.values(call.arguments)) {
            if (typeof value !== 'object')
              assert.ok(task.query.includes(String(value)), `${task.id}: ${value} is stated`);
          }
        }
      }
      const chain = report.tasks.find((t) => t.meta.kind === 'chain' && t.meta.tools === 3);
      assert.ok(chain, 'createNote → listComments → addComment');
      assert.deepEqual(chain.reference_tools, [
        'notes_test__createNote',
        'notes_test__listComments',
        'notes_test__addComment',
      ]);
      assert.deepEqual(chain.meta.calls[1]!.arguments.noteId, { $ref: 'c1.body.id' });
      assert.deepEqual(chain.meta.calls[2]!.arguments.text, { $ref: 'c2.body[0].text' });
      assert.match(
        chain.query,
        /^1\. Create a note with title "[^"]+"\. 2\. List comments, using the id from step 1 as noteId\. 3\. Comment on a note, using the text from step 2 as text with noteId "[^"]+"\. Tell me the "\w+" from step 3\.$/,
      );
      assert.ok(report.executed_share >= 0.95, String(report.executed_share));
      assert.ok(report.dropped.duplicate > 0, 'a small library repeats calls: the repeats are dropped');
    },
  );

  it('is deterministic in its seed, and has no duplicates', async () => {
    const [a, b, c] = [await synth({ seed: 3 }), await synth({ seed: 3 }), await synth({ seed: 4 })];
    assert.deepEqual(a.tasks, b.tasks);
    assert.notDeepEqual(
      a.tasks.map((t) => t.query),
      c.tasks.map((t) => t.query),
    );
    const keys = a.tasks.map((t) => JSON.stringify(t.meta.calls));
    assert.equal(new Set(keys).size, keys.length);
  });

  it(
    'the answer is what running the reference chain gives: ' +
      'an agent that follows the query reads it off the last result',
    async () => {
      const { tasks } = await synth({ count: 6, minTools: 2, maxTools: 2 });
      const chain = tasks.find((t) => t.meta.kind === 'chain')!;
      // The chain's last call reads, through world state, the resource its first call created:
      // the answer comes from it.
      assert.match(chain.meta.answer_fields[0]!, /^c2\.body\./);
      assert.ok(chain.answer![0]!.length >= 4);
      assert.ok(!chain.query.includes(chain.answer![0]!));
    },
  );

  it('--hard weights the strata by n²; a stratum no chain can fill is made of the other kinds', async () => {
    const report = await synth({ count: 14, minTools: 1, maxTools: 3, hard: true });
    assert.deepEqual(report.strata, { 1: 1, 2: 4, 3: 9 });
  });

  it('drops and counts what fails a check: arguments no query can state, a rewrite that loses a value', async () => {
    const parts = await synthParts();
    const tool = parts.store.get('notes_test__createNote')!;
    parts.close();
    assert.equal(
      synthArguments(
        {
          ...tool,
          parameters: {
            type: 'object',
            required: ['body'],
            properties: { body: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
          },
        },
        new Set(),
        1,
      ),
      undefined,
    );
    assert.deepEqual(Object.keys(synthArguments(tool, new Set(), 1)!), ['title']);
    const rewritten = await synth({
      count: 4,
      minTools: 1,
      maxTools: 1,
      rephrase: async () => 'Do the thing and tell me.',
    });
    assert.deepEqual(
      rewritten.rephrase,
      { rewritten: 0, rejected: 4, failed: 0 },
      'the template stays when the rewrite drops the values',
    );
    const kept = await synth({ count: 4, minTools: 1, maxTools: 1, rephrase: async (query) => `Please: ${query}` });
    assert.equal(kept.rephrase.rewritten, 4);
    const failing = await synth({
      count: 2,
      minTools: 1,
      maxTools: 1,
      rephrase: async () => Promise.reject(new Error('model down')),
    });
    assert.deepEqual(failing.rephrase, { rewritten: 0, rejected: 0, failed: 2, last_error: 'model down' });
    assert.ok(kept.tasks.every((t) => t.query.startsWith('Please: ')));
  });

  it('checks: a query must state every value and the fields to report, and name no tool id nor an answer', async () => {
    const parts = await synthParts();
    const tool = parts.store.get('petstore_test__addPet')!;
    parts.close();
    const calls = [{ tool, given: { name: 'Rexford' } }];
    const answers = [{ call: 0, field: { path: '.id', key: 'id', value: '918273' } }];
    assert.equal(queryProblem('Add a pet with name "Rexford". Tell me the "id".', calls, answers), undefined);
    assert.equal(
      queryProblem('Call petstore_test__addPet with name "Rexford". Tell me the "id".', calls, answers),
      'leaks_tool_id',
    );
    assert.equal(queryProblem('Add a pet. Tell me the "id".', calls, answers), 'value_missing');
    assert.equal(
      queryProblem('Add a pet with name "Rexford". Tell me the id.', calls, answers),
      'value_missing',
      'the field to report is lost',
    );
    assert.equal(
      queryProblem('Add a pet with name "Rexford"; its "id" is 918273.', calls, answers),
      'value_missing',
      'the answer is given away',
    );
    // A rewrite must keep which result feeds which parameter, and which step each field comes from.
    const get = { tool, given: {}, link: { from: 0, param: 'petId', key: 'id', path: 'body.id' } };
    const last = [{ call: 1, field: { path: '.name', key: 'name', value: 'Rex the 2nd' } }];
    assert.equal(
      queryProblem(
        '1. Add a pet with name "Rexford". 2. Find it, ' +
          'using the id from step 1 as petId. Tell me the "name" from step 2.',
        [calls[0]!, get],
        last,
      ),
      undefined,
    );
    assert.equal(
      queryProblem(
        '1. Add a pet with name "Rexford". 2. Find it. Tell me the "name" from step 2.',
        [calls[0]!, get],
        last,
      ),
      'value_missing',
    );
    assert.equal(
      queryProblem(
        '1. Add a pet with name "Rexford". 2. Find it, using the id as petId. Tell me the "name".',
        [calls[0]!, get],
        last,
      ),
      'value_missing',
    );
  });

  it(
    'the answer is a leaf the model sees and only the result gives: ' + 'ids first, stated values and short ones never',
    () => {
      const observation = (body: unknown) => ({
        type: 'tool_call' as const,
        id: 'c1',
        tool: 't',
        status: 200,
        body,
        source: 'synth' as const,
      });
      assert.deepEqual(
        chooseAnswer(observation({ status: 'sold', title: 'Rexford 2', id: 77123, tags: [{ label: 'calm dog' }] }), []),
        { path: '.id', key: 'id', value: '77123' },
      );
      assert.deepEqual(chooseAnswer(observation({ name: 'Rexford', nickname: 'Rexy the dog' }), ['rexford']), {
        path: '.nickname',
        key: 'nickname',
        value: 'Rexy the dog',
      });
      assert.equal(
        chooseAnswer(observation({ ok: true, n: 3, code: 'ab', state: 'open' }), []),
        undefined,
        'nothing specific enough: short words are guessed',
      );
      // The top-level id echoes a stated value; the nested one is then asked for by its path, never as "the id".
      assert.deepEqual(chooseAnswer(observation({ id: '934502937', owned_by: { id: 'ede15366-aa' } }), ['934502937']), {
        path: '.owned_by.id',
        key: 'owned_by.id',
        value: 'ede15366-aa',
      });
      // A value an earlier result already showed would not prove this call was made.
      const earlier = [observation({ vcenterId: 293332475 })];
      assert.deepEqual(chooseAnswer(observation({ vcenterId: 293332475, uuid: 'f00d-4321' }), [], earlier), {
        path: '.uuid',
        key: 'uuid',
        value: 'f00d-4321',
      });
      // Odd field names are never asked for; odd paths read as reference steps.
      assert.equal(
        chooseAnswer(
          observation({ $ref: '#/components/schemas/X/example', '@odata.type': '#microsoft.graph.user' }),
          [],
        ),
        undefined,
      );
      // Past what the observation shows (it keeps the first members of a wide object), a value is not one the model
      // could read.
      const wide = {
        ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, 'abc'])),
        late: 'visible-only-in-full',
      };
      assert.equal(chooseAnswer(observation(wide), []), undefined);
    },
  );

  it('phrases tools from their summaries, never from their ids', async () => {
    const parts = await synthParts();
    const tool = parts.store.get('petstore_test__addPet')!;
    parts.close();
    assert.equal(action(tool), 'add a pet');
    assert.equal(
      action({ ...tool, name: 'petstore_test__addPet', description: 'Adds a new pet to the store. It gets an id.' }),
      'use the API that does this: adds a new pet to the store',
    );
    const answer = { path: 'id', key: 'id', value: '123456' };
    assert.equal(
      templateQuery('single', [{ tool, given: { name: 'Rex' } }], [{ call: 0, field: answer }]),
      'Add a pet with name "Rex". Tell me the "id" in the result.',
    );
  });
});

describe('toolenv tasks synth', () => {
  it(
    'writes JSON Lines tasks the own task format reads, ' +
      'with a summary; bad flags and a missing graph are one-line errors',
    async () => {
      const { dir } = await synthParts();
      const out = join(tempDir('toolenv-synth-'), 'tasks.jsonl');
      const run = toolenv([
        'tasks',
        'synth',
        '--count',
        '6',
        '--tools',
        '1-2',
        '--seed',
        '2',
        '--library',
        dir,
        '--out',
        out,
        '--json',
      ]);
      assert.equal(run.status, 0, run.stderr);
      const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, any>;
      assert.equal(summary.tasks, 6);
      assert.deepEqual(summary.strata, { 1: 3, 2: 3 });
      const lines = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
      assert.equal(lines.length, 6);
      assert.ok(
        lines.every(
          (t) =>
            t.meta.source === 'synth' &&
            Number.isInteger(t.seed) &&
            Array.isArray(t.answer) &&
            /^synth-[0-9a-f]{12}$/.test(t.id),
        ),
      );

      const nested = join(tempDir('toolenv-synth-'), 'runs', 'new', 'tasks.jsonl');
      const made = toolenv(['tasks', 'synth', '--count', '2', '--tools', '1', '--library', dir, '--out', nested]);
      assert.equal(
        made.status,
        0,
        `--out in folders that do not exist yet: made, as a newcomer expects (${made.stderr})`,
      );
      assert.equal(readFileSync(nested, 'utf8').trim().split('\n').length, 2);

      const stdout = toolenv(['tasks', 'synth', '--count', '2', '--tools', '1', '--library', dir]);
      assert.equal(stdout.status, 0, stdout.stderr);
      assert.equal(stdout.stdout.trim().split('\n').length, 2, 'without --out the tasks go to stdout');
      assert.match(stdout.stderr, /made 2 tasks/);

      for (const [args, message] of [
        [['--tools', '0-5'], /--tools must be N or MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 4/],
        [['--library', tempDir('toolenv-empty-')], /no library at/],
        [['--phrase', 'gpt'], /--phrase: expected openai:MODEL@URL/],
        [['--category', 'nope'], /--category: no category "nope" in .*; it has /],
        [['--out', '/dev/null/x.jsonl'], /--out \/dev\/null\/x\.jsonl: cannot write it \(E[A-Z]+\)/],
      ] as [string[], RegExp][]) {
        const bad = toolenv(['tasks', 'synth', '--library', dir, ...args]);
        assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stderr}`);
        assert.match(bad.stderr, message);
      }
    },
  );

  it(
    'a graph with no hard edges makes single and independent tasks, ' + 'and says so when a chain is all it could be',
    () => {
      const dir = writeFixtureLibrary(petstoreTools);
      writeGraph(dir, { nodes: petstoreTools.map((t) => ({ id: t.id, api: 'petstore' })), edges: [], meta: {} });
      const chains = toolenv([
        'tasks',
        'synth',
        '--count',
        '2',
        '--tools',
        '2',
        '--seed',
        '1',
        '--library',
        dir,
        '--json',
        '--out',
        join(tempDir('toolenv-synth-'), 't.jsonl'),
      ]);
      assert.equal(chains.status, 0, chains.stderr);
      assert.deepEqual(JSON.parse(chains.stdout.trim().split('\n').at(-1)!).kinds.chain, 0);
      const none = toolenv(['tasks', 'synth', '--count', '2', '--tools', '4', '--library', dir]);
      assert.equal(none.status, 2, none.stderr);
      assert.match(none.stderr, /no task could be made with 4-4 tools \(dropped: no_candidate \d+/);
    },
  );

  it('--phrase asks an OpenAI-compatible model for the rewrite', async () => {
    const { dir } = await synthParts();
    let asked = 0;
    const model = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        asked++;
        const query = (JSON.parse(body) as { messages: { content: string }[] }).messages[1]!.content;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            choices: [
              {
                message: {
                  content: JSON.stringify({ query: `Could you ${query.charAt(0).toLowerCase()}${query.slice(1)}` }),
                },
              },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    try {
      const out = join(tempDir('toolenv-synth-'), 'tasks.jsonl');
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [
          BIN,
          'tasks',
          'synth',
          '--count',
          '3',
          '--tools',
          '1',
          '--library',
          dir,
          '--out',
          out,
          '--json',
          '--phrase',
          `openai:m@http://127.0.0.1:${(model.address() as AddressInfo).port}`,
        ]);
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (status: number | null) => resolve({ status, stdout, stderr }));
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout.trim()).rephrase.rewritten, 3);
      assert.equal(asked, 3);
      assert.ok(
        readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .every((l) => (JSON.parse(l) as { query: string }).query.startsWith('Could you ')),
      );
    } finally {
      model.close();
    }
  });
});
