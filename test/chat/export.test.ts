/** `toolenv export` as a user runs it: saved runs of either protocol, through the real bin/toolenv, into chat rows. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { createEpisode, json, post, startEpisodeServer } from '../episodes/fixture.js';
import { ADD, ANSWER, EXECUTE, EXPLORE, GET, NEXT, TASK, withGraph } from '../episodes/paraact-text.js';
import { tempDir } from '../fixtures/tools.js';

type Json = Record<string, any>;
const BIN = join(packageRoot, 'bin', 'toolenv');
const toolenv = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
const hermes = (name: string, args: unknown) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

test(
  'toolenv export writes a ParaAct run and a chat run as the ' +
    'same chat conversation, and a chat run re-scores as live',
  async (t) => {
    const library = await withGraph();
    const server = await startEpisodeServer();
    t.after(() => server.close());
    const dir = tempDir('toolenv-export-');
    const save = async (id: string, name: string) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(await json(await fetch(`${server.url}/v1/episodes/${id}`))));
      return file;
    };

    const paraact = await createEpisode(server.url, { task: TASK, seed: 5, error_rate: 0 });
    for (const text of [EXPLORE, EXECUTE, NEXT, ANSWER])
      await json(await post(`${server.url}/v1/episodes/${paraact.id}/turns`, { text }));
    const chat = await createEpisode(server.url, { protocol: 'chat', task: TASK, seed: 5, error_rate: 0 });
    const turn = async (text: string) => json(await post(`${server.url}/v1/episodes/${chat.id}/turns`, { text }));
    await turn(hermes('search_tool', { query: 'Add a pet' }) + hermes('search_tool', { query: 'Find pet by ID' }));
    const added = JSON.parse((await turn(hermes(ADD, { name: 'Rex', status: 'available' }))).messages[0].content);
    await turn(hermes(GET, { petId: added.body.id }));
    await turn('Rex was added to the store and read back.');
    const unanswered = await createEpisode(server.url, { task: TASK, max_turns: 1 });
    await json(await post(`${server.url}/v1/episodes/${unanswered.id}/turns`, { text: EXPLORE }));
    const files = [
      await save(paraact.id, 'paraact.json'),
      await save(chat.id, 'chat.json'),
      await save(unanswered.id, 'unanswered.json'),
    ];
    // Read before the CLI runs: spawnSync blocks this process's server, whose idle sockets may close meanwhile.
    const live = await json(await fetch(`${server.url}/v1/episodes/${chat.id}/rewards`));

    const out = join(dir, 'rows.jsonl');
    const run = toolenv(['export', ...files, '--out', out, '--library', library, '--json']);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    assert.deepEqual(lines.at(-1), {
      files: 3,
      rows: 2,
      skipped: [{ file: files[2], why: 'the episode gave no final answer' }],
      out,
    });
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.deepEqual(
        row.messages.map((m: Json) => m.role),
        ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
      );
      assert.deepEqual(
        JSON.parse(row.tools).map((f: Json) => f.function.name),
        ['search_tool', 'call_tool'],
      );
      assert.equal(row.task_id, TASK.id);
      const [, , search, , , add, , get, , answer] = row.messages;
      assert.deepEqual(
        search.tool_calls.map((c: Json) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
        [
          ['call_1_1', 'search_tool', { query: 'Add a pet' }],
          ['call_1_2', 'search_tool', { query: 'Find pet by ID' }],
        ],
      );
      assert.deepEqual(row.messages[3].tool_call_id, 'call_1_1');
      assert.deepEqual(JSON.parse(add.tool_calls[0].function.arguments), {
        tool: ADD,
        arguments: { name: 'Rex', status: 'available' },
      });
      // The ParaAct run's reference was bound: the row holds the id the call was sent with.
      assert.equal(typeof JSON.parse(get.tool_calls[0].function.arguments).arguments.petId, 'number');
      assert.match(row.messages[8].content, /"status":200.*"name":"Rex"/);
      assert.equal(answer.content, 'Rex was added to the store and read back.');
    }
    assert.equal(rows[0]!.source_protocol, 'paraact');
    assert.equal(
      rows[0]!.messages[2].content,
      'I need a tool to add a pet and one to read it back.',
      'the ParaAct turn’s reasoning',
    );
    assert.equal(rows[1]!.source_protocol, 'chat');

    const objects = toolenv([
      'export',
      files[1]!,
      '--out',
      join(dir, 'objects.jsonl'),
      '--library',
      library,
      '--arguments',
      'object',
    ]);
    assert.equal(objects.status, 0, objects.stderr);
    const row = JSON.parse(readFileSync(join(dir, 'objects.jsonl'), 'utf8')) as Json;
    assert.deepEqual(row.messages[2].tool_calls[0].function.arguments, { query: 'Add a pet' });

    const rescored = toolenv(['reward', files[1]!, '--library', library, '--json']);
    assert.equal(rescored.status, 0, rescored.stderr);
    assert.deepEqual(JSON.parse(rescored.stdout.split('\n')[0]!).rewards, live);

    const bad = toolenv(['export', join(dir, 'missing.json'), '--out', join(dir, 'x.jsonl'), '--library', library]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /missing\.json: cannot read it/);
    const badForm = toolenv(['export', files[0]!, '--arguments', 'yaml', '--library', library]);
    assert.equal(badForm.status, 2);
    assert.match(badForm.stderr, /--arguments must be one of string, object/);
  },
);
