import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { expectProblem } from '../server/helpers.js';
import { petstoreTools } from '../fixtures/tools.js';
import { extraTools } from '../retrieval/fixture.js';
import { call, createEpisode, json, notesToolsWithClientIds, post, startEpisodeServer, step } from './fixture.js';

type Json = Record<string, any>;
const titles = (list: Json) => (list.body.items as Json[]).map((item) => item.title);

describe('world state', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await startEpisodeServer({ tools: [...petstoreTools, ...notesToolsWithClientIds, ...extraTools] });
    url = server.url;
  });
  after(() => server.close());

  it('create → read → update → list → delete → 404, through step actions', async () => {
    const { id } = await createEpisode(url);
    const [milk, report] = (
      await step(url, id, [
        call('notes_test__createNote', { title: 'Buy milk', tag: 'home' }),
        call('notes_test__createNote', { title: 'Write report', tag: 'work' }),
      ])
    ).observations;
    for (const created of [milk, report]) assert.deepEqual([created.status, created.state], [201, 'created']);
    assert.equal(milk.body.title, 'Buy milk');
    assert.notEqual(milk.body.id, report.body.id);

    const [read, all, work, untouched] = (
      await step(url, id, [
        call('notes_test__getNote', { noteId: milk.body.id }),
        call('notes_test__listNotes', {}),
        call('notes_test__listNotes', { tag: 'work' }),
        call('notes_test__getNote', { noteId: 'never-created' }),
      ])
    ).observations;
    assert.deepEqual([read.status, read.source, read.state], [200, 'state', 'read']);
    assert.deepEqual(read.body, milk.body);
    assert.equal(all.state, 'listed');
    assert.ok(titles(all).includes('Buy milk') && titles(all).includes('Write report'), JSON.stringify(all.body));
    assert.ok(titles(work).includes('Write report') && !titles(work).includes('Buy milk'), JSON.stringify(work.body));
    assert.equal(untouched.state, undefined);
    assert.notEqual(untouched.source, 'state');

    const [patched, replaced] = (
      await step(url, id, [
        call('notes_test__updateNote', { noteId: milk.body.id, title: 'Buy oat milk' }),
        call('notes_test__replaceNote', { noteId: report.body.id, title: 'Final report' }),
      ])
    ).observations;
    assert.deepEqual(
      [patched.state, patched.body.id, patched.body.title, patched.body.tag],
      ['updated', milk.body.id, 'Buy oat milk', 'home'],
    );
    assert.equal(replaced.body.title, 'Final report');

    const [reread, deleted] = (
      await step(url, id, [
        call('notes_test__getNote', { noteId: milk.body.id }),
        call('notes_test__deleteNote', { noteId: report.body.id }),
      ])
    ).observations;
    assert.deepEqual({ ...reread.body }, { ...milk.body, title: 'Buy oat milk' });
    assert.deepEqual([deleted.status, deleted.state], [204, 'deleted']);

    const [gone, listed, again, update] = (
      await step(url, id, [
        call('notes_test__getNote', { noteId: report.body.id }),
        call('notes_test__listNotes', {}),
        call('notes_test__deleteNote', { noteId: report.body.id }),
        call('notes_test__updateNote', { noteId: report.body.id, title: 'x' }),
      ])
    ).observations;
    assert.deepEqual([gone.status, gone.source, gone.state, gone.body.status], [404, 'state', 'missing', 404]);
    assert.equal(gone.headers['content-type'], 'application/problem+json');
    assert.ok(
      titles(listed).includes('Buy oat milk') &&
        !titles(listed).includes('Final report') &&
        !titles(listed).includes('Write report'),
    );
    assert.deepEqual([again.status, again.state, update.status, update.state], [404, 'missing', 404, 'missing']);
  });

  it(
    'REST-surface and tool-call requests join an episode with x-toolenv-episode; ' + 'without it calls stay stateless',
    async () => {
      const { id } = await createEpisode(url);
      const headers = { 'content-type': 'application/json', 'x-toolenv-episode': id };
      const base = `${url}/apis/petstore.test`;
      const created = await fetch(`${base}/pets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Rex', status: 'sold' }),
      });
      const pet = await json(created, 201);
      assert.equal(created.headers.get('x-toolenv-state'), 'created');
      assert.equal(created.headers.get('x-toolenv-step'), '1');
      assert.equal(pet.name, 'Rex');

      const read = await fetch(`${base}/pets/${pet.id}`, { headers });
      assert.deepEqual(await json(read), pet);
      assert.equal(read.headers.get('x-toolenv-source'), 'state');
      assert.equal(read.headers.get('x-toolenv-state'), 'read');

      const outside = await fetch(`${base}/pets/${pet.id}`);
      assert.equal(outside.status, 200);
      assert.equal(outside.headers.get('x-toolenv-state'), null);
      assert.notEqual(outside.headers.get('x-toolenv-source'), 'state');
      const outsideList = (await json(await fetch(`${base}/pets`))) as Json[];
      assert.ok(!outsideList.some((p) => p.name === 'Rex' && p.id === pet.id));

      const list = (await json(await fetch(`${base}/pets`, { headers }))) as Json[];
      assert.ok(list.some((p) => p.id === pet.id && p.name === 'Rex'));

      const deleted = await post(
        `${url}/v1/tools/petstore_test__deletePet/call`,
        { arguments: { petId: pet.id } },
        { 'x-toolenv-episode': id },
      );
      assert.equal(deleted.status, 204);
      assert.equal(deleted.headers.get('x-toolenv-state'), 'deleted');
      const missing = await expectProblem(await fetch(`${base}/pets/${pet.id}`, { headers }), 404);
      assert.match(String(missing.detail), /deleted earlier in this episode/);

      // The step API sees the same world, and the trajectory holds every request as a one-action step.
      const [viaStep] = (await step(url, id, [call('petstore_test__getPetById', { petId: pet.id })])).observations;
      assert.equal(viaStep.state, 'missing');
      const trajectory = await json(await fetch(`${url}/v1/episodes/${id}`));
      assert.deepEqual(
        trajectory.steps.map((s: Json) => s.actions.length),
        [1, 1, 1, 1, 1, 1],
      );
      assert.deepEqual(trajectory.steps[0].actions[0], {
        type: 'tool_call',
        tool: 'petstore_test__addPet',
        arguments: { name: 'Rex', status: 'sold' },
      });
      assert.deepEqual(
        trajectory.steps.map((s: Json) => s.observations[0].state),
        ['created', 'read', 'listed', 'deleted', 'missing', 'missing'],
      );
    },
  );

  it('keeps nested collections apart by their parent ids', async () => {
    const { id } = await createEpisode(url);
    const [a, b] = (
      await step(url, id, [
        call('notes_test__createNote', { title: 'A' }),
        call('notes_test__createNote', { title: 'B' }),
      ])
    ).observations;
    await step(url, id, [
      call('notes_test__addComment', { noteId: a.body.id, text: 'on A' }),
      call('notes_test__addComment', { noteId: b.body.id, text: 'on B' }),
    ]);
    const [onA, onB] = (
      await step(url, id, [
        call('notes_test__listComments', { noteId: a.body.id }),
        call('notes_test__listComments', { noteId: b.body.id }),
      ])
    ).observations;
    const texts = (list: Json) => (list.body as Json[]).map((c) => c.text);
    assert.ok(texts(onA).includes('on A') && !texts(onA).includes('on B'), JSON.stringify(onA.body));
    assert.ok(texts(onB).includes('on B') && !texts(onB).includes('on A'), JSON.stringify(onB.body));
  });

  it('never hands out one id twice: a create answered with a taken id gets a fresh one', async () => {
    const { id } = await createEpisode(url);
    const notes = (
      await step(url, id, [
        call('notes_test__createNote', { title: 'Same' }),
        call('notes_test__createNote', { title: 'Same' }),
      ])
    ).observations;
    const pets = (
      await step(url, id, [
        call('petstore_test__addPet', { name: 'Twin' }),
        call('petstore_test__addPet', { name: 'Twin' }),
      ])
    ).observations;
    assert.equal(notes[1].body.id, `${notes[0].body.id}-2`);
    assert.equal(notes[1].source, 'state');
    assert.ok(pets[1].body.id > pets[0].body.id, JSON.stringify(pets.map((p: Json) => p.body)));
    const reads = (
      await step(url, id, [
        call('notes_test__getNote', { noteId: notes[1].body.id }),
        call('petstore_test__getPetById', { petId: pets[1].body.id }),
      ])
    ).observations;
    assert.deepEqual(
      reads.map((r: Json) => r.state),
      ['read', 'read'],
    );
  });

  it(
    'leaves alone what the simulated API did not answer: ' + 'injected errors, forced error codes, non-REST tools',
    async () => {
      const { id } = await createEpisode(url, { error_rate: 1 });
      const [injected] = (await step(url, id, [call('notes_test__createNote', { title: 'lost' })])).observations;
      assert.ok(injected.error);
      assert.equal(injected.state, undefined);

      const { id: other } = await createEpisode(url);
      const forced = await step(url, other, [
        { ...call('notes_test__createNote', { title: 'forced' }), controls: { code: 404 } },
        call('weather_forecast', { city: 'Oslo' }),
      ]);
      assert.equal(forced.observations[0].status, 404);
      assert.equal(forced.observations[0].state, undefined);
      assert.equal(forced.observations[1].state, undefined);
      const [list] = (await step(url, other, [call('notes_test__listNotes', {})])).observations;
      assert.equal(list.state, undefined);
      assert.ok(!titles(list).includes('forced'));
    },
  );

  it('a forced success code only suppresses injection: world state still applies', async () => {
    const { id } = await createEpisode(url, { error_rate: 1 });
    const [created] = (
      await step(url, id, [
        { ...call('notes_test__createNote', { title: 'kept' }), controls: { code: 201, dynamic: true } },
      ])
    ).observations;
    assert.deepEqual([created.status, created.error, created.state], [201, undefined, 'created']);
    const [read, list] = (
      await step(url, id, [
        { ...call('notes_test__getNote', { noteId: created.body.id }), controls: { code: 200 } },
        { ...call('notes_test__listNotes', {}), controls: { code: 200 } },
      ])
    ).observations;
    assert.deepEqual([read.status, read.state, read.body.title], [200, 'read', 'kept']);
    assert.ok(titles(list).includes('kept'), JSON.stringify(list.body));
  });

  it('a create with an id the request chose upserts it; only ids the response made up are renamed', async () => {
    const { id } = await createEpisode(url);
    const [first] = (await step(url, id, [call('notes_test__createNote', { id: 'm1', title: 'first' })])).observations;
    const [again] = (await step(url, id, [call('notes_test__createNote', { id: 'm1', title: 'second', tag: 'home' })]))
      .observations;
    assert.deepEqual([first.body.id, first.state, again.body.id, again.state], ['m1', 'created', 'm1', 'created']);
    const [read, list] = (
      await step(url, id, [call('notes_test__getNote', { noteId: 'm1' }), call('notes_test__listNotes', {})])
    ).observations;
    assert.deepEqual([read.state, read.body.id, read.body.title, read.body.tag], ['read', 'm1', 'second', 'home']);
    assert.deepEqual(
      (list.body.items as Json[])
        .filter((note) => String(note.id).startsWith('m1'))
        .map((note) => [note.id, note.title]),
      [['m1', 'second']],
    );

    // Deleted, then created again under the same id: it is back.
    await step(url, id, [call('notes_test__deleteNote', { noteId: 'm1' })]);
    const [revived] = (await step(url, id, [call('notes_test__createNote', { id: 'm1', title: 'third' })]))
      .observations;
    assert.deepEqual([revived.body.id, revived.state], ['m1', 'created']);
    const [reread] = (await step(url, id, [call('notes_test__getNote', { noteId: 'm1' })])).observations;
    assert.deepEqual([reread.state, reread.body.title], ['read', 'third']);
  });

  it('reads of a step see the world as the step found it; its writes apply after, in action order', async () => {
    const { id } = await createEpisode(url);
    const [created, early] = (
      await step(url, id, [
        call('notes_test__createNote', { id: 'dev1', title: 'v1' }),
        call('notes_test__getNote', { noteId: 'dev1' }),
      ])
    ).observations;
    assert.equal(created.state, 'created');
    assert.notEqual(early.source, 'state');
    assert.equal(early.state, undefined);

    const [patched, tagged, read, list] = (
      await step(url, id, [
        call('notes_test__updateNote', { noteId: 'dev1', title: 'v2' }),
        call('notes_test__updateNote', { noteId: 'dev1', tag: 'work' }),
        call('notes_test__getNote', { noteId: 'dev1' }),
        call('notes_test__listNotes', {}),
      ])
    ).observations;
    assert.deepEqual([patched.body.title, tagged.body.title, tagged.body.tag], ['v2', 'v2', 'work']);
    assert.deepEqual([read.state, read.body.title], ['read', 'v1']);
    assert.deepEqual(
      (list.body.items as Json[]).filter((note) => note.id === 'dev1').map((note) => note.title),
      ['v1'],
    );

    const [deleted, before] = (
      await step(url, id, [
        call('notes_test__deleteNote', { noteId: 'dev1' }),
        call('notes_test__getNote', { noteId: 'dev1' }),
      ])
    ).observations;
    assert.deepEqual(
      [deleted.state, before.state, before.body.title, before.body.tag],
      ['deleted', 'read', 'v2', 'work'],
    );
    const [gone] = (await step(url, id, [call('notes_test__getNote', { noteId: 'dev1' })])).observations;
    assert.deepEqual([gone.status, gone.state], [404, 'missing']);
  });
});
