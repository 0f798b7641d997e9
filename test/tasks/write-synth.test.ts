import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EpisodeStore } from '../../src/episodes/store.js';
import { openGraph, writeGraph } from '../../src/graph/store.js';
import { LibraryStore } from '../../src/library/store.js';
import { packageRoot } from '../../src/paths.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { synthesizeTasks, type SynthOptions, type SynthTask } from '../../src/tasks/synth/run.js';
import { bindRefs } from '../../src/protocol/references.js';
import type { ToolCallObservation } from '../../src/wire/episodes.js';
import { plannedState } from '../../src/tasks/synth/expect.js';
import { episodeLibrary, episodeTools, notesTools } from '../episodes/fixture.js';
import { tempDir } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

/** Creates feeding their ids to a delete, a nested create and an update: the write chains of the fixture. */
const WRITE_EDGES = [
  ['petstore_test__addPet', 'petstore_test__deletePet'],
  ['notes_test__createNote', 'notes_test__deleteNote'],
  ['notes_test__createNote', 'notes_test__addComment'],
  ['notes_test__createNote', 'notes_test__updateNote'],
] as const;

let library: string | undefined;
async function writeLibrary(): Promise<string> {
  if (library) return library;
  // A copy of the tool list: the fixture keys its libraries by the list, so this one gets its own directory.
  const dir = await episodeLibrary([...episodeTools]);
  writeGraph(dir, {
    nodes: episodeTools.map((t) => ({ id: t.id, api: t.origin.format === 'openapi' ? t.origin.api_id : 'other' })),
    edges: WRITE_EDGES.map(([src, dst]) => ({
      src,
      dst,
      kind: 'hard' as const,
      rule: 'creates' as const,
      score: 0.9,
      evidence: 'fixture',
    })),
    meta: {},
  });
  return (library = dir);
}

async function synth(over: Partial<SynthOptions> = {}) {
  const dir = await writeLibrary();
  const store = LibraryStore.open(dir);
  const graph = openGraph(dir);
  const simulator = createSimulator({ store, responders: [examplesResponder, synthResponder], seed: 0, errorRate: 0 });
  try {
    const report = await synthesizeTasks({
      store,
      graph,
      simulator,
      count: 12,
      seed: 3,
      goal: 'write',
      minTools: 1,
      maxTools: 2,
      ...over,
    });
    const close = () => {
      graph.close();
      store.close();
    };
    return { report, store, simulator, close };
  } catch (error) {
    graph.close();
    store.close();
    throw error;
  }
}

/** A task's reference calls run in a fresh episode carrying its `expect`: the state checks before and after. */
async function scoreReference(
  task: SynthTask,
  parts: { store: LibraryStore; simulator: ReturnType<typeof createSimulator> },
  calls = task.meta.calls,
) {
  const episodes = new EpisodeStore({
    simulator: parts.simulator,
    library: parts.store,
    search: () => Promise.reject(new Error('no search')),
  });
  try {
    const episode = episodes.create({
      seed: task.seed,
      error_rate: 0,
      task: { id: task.id, query: task.query, expect: task.expect },
    });
    const before = episodes.summary(episode.id)!.state_checks!;
    const results: ToolCallObservation[] = [];
    for (const [i, call] of calls.entries()) {
      const args = bindRefs(call.arguments, (id) => {
        const o = results[Number(id.slice(1)) - 1];
        return o && { status: o.status, body: o.body };
      }) as Record<string, unknown>;
      const step = await episodes.step(episode.id, {
        actions: [{ type: 'tool_call', id: `c${i + 1}`, tool: call.tool, arguments: args }],
      });
      results.push(step.observations[0] as ToolCallObservation);
    }
    return { before, after: episodes.summary(episode.id)!.state_checks! };
  } finally {
    episodes.close();
  }
}

const notes = (id: string) => notesTools.find((t) => t.id === `notes_test__${id}`)!;

describe('write task assertions (plannedState)', () => {
  it('a create is checked by its stated members, an update by its id and change, a delete by its id', () => {
    const create = { tool: notes('createNote'), given: { title: 'Groceries', tag: 'home' } };
    const update = { tool: notes('updateNote'), given: { done: true } };
    const planned = plannedState([create, update], [create.given, { noteId: 'n-1', done: true }]);
    assert.deepEqual(planned, {
      expect: [
        { assert: 'exists', api: 'notes.test', collection: '/notes', where: { title: 'Groceries', tag: 'home' } },
        { assert: 'exists', api: 'notes.test', collection: '/notes', id: 'n-1', where: { done: true } },
      ],
      by: [0, 1],
    });
    const remove = { tool: notes('deleteNote'), given: {} };
    assert.deepEqual(plannedState([remove], [{ noteId: 'n-2' }])!.expect, [
      { assert: 'deleted', api: 'notes.test', collection: '/notes', id: 'n-2' },
    ]);
  });

  it('what the chain deletes or overwrites later is not checked on the create; nothing stated is no task', () => {
    const create = { tool: notes('createNote'), given: { title: 'Groceries' } };
    const removed = plannedState([create, { tool: notes('deleteNote'), given: {} }], [create.given, { noteId: 'n-1' }]);
    assert.deepEqual(removed, {
      expect: [{ assert: 'deleted', api: 'notes.test', collection: '/notes', id: 'n-1' }],
      by: [1],
    });
    const retitled = plannedState(
      [create, { tool: notes('updateNote'), given: { title: 'Errands' } }],
      [create.given, { noteId: 'n-1', title: 'Errands' }],
    );
    assert.deepEqual(retitled!.by, [1], 'the create stated only the title the update replaced');
    assert.equal(plannedState([{ tool: notes('updateNote'), given: {} }], [{ noteId: 'n-1' }]), undefined);
    assert.equal(plannedState([{ tool: notes('getNote'), given: {} }], [{ noteId: 'n-1' }]), undefined);
  });
});

describe('write task synthesis', () => {
  it('makes creates, updates, deletes and chains whose created id feeds the next call, with assertions', async () => {
    const { report, close } = await synth({ count: 12 });
    try {
      assert.equal(report.tasks.length, 12, JSON.stringify(report.dropped));
      for (const task of report.tasks) {
        assert.equal(task.meta.goal, 'write');
        assert.equal(task.answer, undefined, 'a write task asks for no answer');
        // One assertion a call, but for a create its chain deletes again.
        const deletes = task.meta.calls.filter((c) => /delete/i.test(c.tool)).length;
        const creates = task.meta.calls.length - deletes;
        assert.ok(
          task.expect && task.expect.length >= deletes && task.expect.length <= task.meta.calls.length,
          task.id,
        );
        assert.ok(task.expect.length === task.meta.calls.length || (deletes > 0 && creates > 0), task.id);
        assert.doesNotMatch(task.query, /Tell me/);
        // Every value an assertion checks is stated in the query.
        for (const assertion of task.expect)
          if (assertion.assert !== 'deleted')
            for (const value of Object.values(assertion.where ?? {}))
              assert.ok(task.query.includes(JSON.stringify(value)), `${task.id}: ${value} stated in ${task.query}`);
      }
      const asserts = new Set(report.tasks.flatMap((t) => t.expect!.map((a) => a.assert)));
      assert.deepEqual([...asserts].sort(), ['deleted', 'exists']);
      const chain = report.tasks.find(
        (t) => t.meta.kind === 'chain' && t.reference_tools.includes('notes_test__addComment'),
      );
      assert.ok(chain, `a createNote → addComment chain among ${report.tasks.map((t) => t.reference_tools)}`);
      assert.deepEqual(chain.meta.calls[1]!.arguments.noteId, { $ref: 'c1.body.id' });
      const [note, comment] = chain.expect!;
      assert.equal(note!.assert, 'exists');
      assert.deepEqual(note, {
        assert: 'exists',
        api: 'notes.test',
        collection: '/notes',
        // The required title and one optional member: what the query states.
        where: chain.meta.calls[0]!.arguments,
      });
      // The comment's collection is under the note the first call created.
      assert.match(comment!.collection, /^\/notes\/[^/]+\/comments$/);
      assert.match(
        chain.query,
        new RegExp(
          '^1\\. Create a note with title "[^"]+"( and tag "(work|home)")?\\. ' +
            '2\\. Comment on a note, using the id from that result as noteId with text "[^"]+"\\.$',
        ),
      );
    } finally {
      close();
    }
  });

  it('verifies each task at synthesis: assertions fail on a fresh world, hold after the reference calls', async () => {
    const parts = await synth({ count: 12 });
    try {
      for (const task of parts.report.tasks) {
        const { before, after } = await scoreReference(task, parts);
        assert.ok(
          before.every((c) => !c.held),
          `${task.id} holds before: ${JSON.stringify(before)}`,
        );
        assert.ok(
          after.every((c) => c.held),
          `${task.id} fails after: ${JSON.stringify(after)}`,
        );
      }
      // A chain stopped after its first call leaves the second assertion failing.
      const chain = parts.report.tasks.find(
        (t) => t.meta.kind === 'chain' && t.reference_tools.includes('notes_test__addComment'),
      )!;
      const partial = await scoreReference(chain, parts, chain.meta.calls.slice(0, 1));
      assert.deepEqual(
        partial.after.map((c) => c.held),
        [true, false],
      );
    } finally {
      parts.close();
    }
  });

  it('an update states the change it makes and is checked on the resource the chain created', async () => {
    const { report, close } = await synth({ count: 20, minTools: 2, maxTools: 2 });
    try {
      const update = report.tasks.find((t) => t.reference_tools.includes('notes_test__updateNote'));
      assert.ok(update, JSON.stringify(report.dropped));
      const [create, change] = update.meta.calls;
      assert.deepEqual(change!.arguments.noteId, { $ref: 'c1.body.id' });
      const { noteId: _, ...changed } = change!.arguments;
      assert.equal(Object.keys(changed).length, 1, 'one optional member set');
      // The create is checked by the members the update leaves; the update by the one it sets, on that id.
      const left = Object.fromEntries(Object.entries(create!.arguments).filter(([k]) => !(k in changed)));
      const checks = update.expect!;
      if (Object.keys(left).length > 0)
        assert.deepEqual(checks[0], { assert: 'exists', api: 'notes.test', collection: '/notes', where: left });
      const last = checks.at(-1) as { assert: string; where: unknown; id: unknown };
      assert.equal(checks.length, Object.keys(left).length > 0 ? 2 : 1);
      assert.equal(last.assert, 'exists');
      assert.deepEqual(last.where, changed);
      assert.equal(typeof last.id, 'string');
      assert.equal(report.dropped.state_not_held + report.dropped.holds_before, 0, JSON.stringify(report.dropped));
    } finally {
      close();
    }
  });

  it('mixed tasks carry both an answer read off the last result and the assertions', async () => {
    const { report, close } = await synth({ count: 6, goal: 'mixed' });
    try {
      assert.ok(report.tasks.length > 0, JSON.stringify(report.dropped));
      for (const task of report.tasks) {
        assert.equal(task.meta.goal, 'mixed');
        assert.ok(task.answer && task.answer.length === 1 && task.expect && task.expect.length > 0, task.id);
        assert.match(task.query, /Tell me the "\w+"/);
      }
    } finally {
      close();
    }
  });

  it('`tasks synth --kind write` writes the tasks and reports the drops; a bad kind is a one-line error', async () => {
    const dir = await writeLibrary();
    const out = join(tempDir(), 'write.jsonl');
    const run = spawnSync(
      process.execPath,
      [
        BIN,
        'tasks',
        'synth',
        '--library',
        dir,
        '--kind',
        'write',
        '--count',
        '4',
        '--tools',
        '1-2',
        '--out',
        out,
        '--json',
      ],
      { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } },
    );
    assert.equal(run.status, 0, run.stderr);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    assert.equal(summary.goal, 'write');
    assert.equal(summary.tasks, 4);
    assert.ok(
      'holds_before' in summary.dropped && 'state_not_held' in summary.dropped && 'no_state' in summary.dropped,
    );
    const tasks = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SynthTask);
    assert.equal(tasks.length, 4);
    assert.ok(tasks.every((t) => t.expect && t.expect.length > 0));
    const loaded = spawnSync(process.execPath, [BIN, 'tasks', 'stats', out, '--json'], { encoding: 'utf8' });
    assert.equal(loaded.status, 0, `the task file loads: ${loaded.stderr}`);

    // The heuristic over them through `eval`: the server read each task's assertions off its episode's world.
    const evaluated = spawnSync(
      process.execPath,
      [
        BIN,
        'eval',
        '--library',
        dir,
        '--cache',
        join(tempDir(), 'cache.db'),
        '--tasks',
        out,
        '--error-rate',
        '0',
        '--json',
      ],
      { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } },
    );
    assert.equal(evaluated.status, 0, evaluated.stderr);
    const report = JSON.parse(evaluated.stdout.trim().split('\n').at(-1)!).agents[0];
    assert.equal(report.scored.r_state, 4, JSON.stringify(report));
    assert.equal(typeof report.state_success, 'number');

    const bad = spawnSync(process.execPath, [BIN, 'tasks', 'synth', '--library', dir, '--kind', 'delete'], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.match(bad.stderr, /--kind must be one of read, write, mixed, got "delete"/);
  });
});
