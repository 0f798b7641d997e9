import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { expectProblem } from '../server/helpers.js';
import { createEpisode, json, post, startEpisodeServer } from './fixture.js';

let server: RunningServer;
before(async () => {
  server = await startEpisodeServer();
});
after(() => server.close());

test(
  'POST /v1/calls with x-toolenv-episode runs the batch as one step of the episode, ' + 'world state included',
  async () => {
    const episode = await createEpisode(server.url, { seed: 3 });
    const id = episode.id as string;
    const created = await json(
      await post(
        `${server.url}/v1/calls`,
        { calls: [{ tool: 'notes_test__createNote', arguments: { title: 'groceries' } }] },
        { 'x-toolenv-episode': id },
      ),
    );
    assert.equal(created.step, 1);
    const [note] = created.results as { status: number; body: { id: string; title: string }; state?: string }[];
    assert.equal(note!.status, 201);
    assert.equal(note!.state, 'created');

    const batch = await post(
      `${server.url}/v1/calls`,
      {
        calls: [
          { tool: 'notes_test__getNote', arguments: { noteId: note!.body.id } },
          { tool: 'notes_test__getNote', arguments: {} },
        ],
      },
      { 'x-toolenv-episode': id },
    );
    assert.equal(batch.headers.get('x-toolenv-step'), '2');
    const read = await json(batch);
    const [found, invalid] = read.results as { status: number; body: { title?: string }; state?: string }[];
    assert.equal(found!.status, 200);
    assert.equal(found!.body.title, 'groceries');
    assert.equal(found!.state, 'read');
    assert.equal(invalid!.status, 400);

    const trajectory = await json(await fetch(`${server.url}/v1/episodes/${id}`));
    assert.equal((trajectory.steps as unknown[]).length, 2);
    assert.equal((trajectory.steps as { actions: unknown[] }[])[1]!.actions.length, 2);

    // Outside the episode the same read knows nothing of the note.
    const stateless = await json(
      await post(`${server.url}/v1/calls`, {
        calls: [{ tool: 'notes_test__getNote', arguments: { noteId: note!.body.id } }],
      }),
    );
    assert.notEqual((stateless.results as { body: { title?: string } }[])[0]!.body.title, 'groceries');

    await expectProblem(
      await post(
        `${server.url}/v1/calls`,
        { calls: [{ tool: 'notes_test__listNotes', arguments: {} }] },
        { 'x-toolenv-episode': 'no-such-episode' },
      ),
      404,
    );
  },
);

test('a batch inside an episode is checked as one step, its refusals naming the batch members', async () => {
  const id = (await createEpisode(server.url)).id as string;
  const headers = { 'x-toolenv-episode': id };
  const wrong = await expectProblem(
    await post(
      `${server.url}/v1/calls`,
      {
        calls: [
          { tool: 'notes_test__listNotes', arguments: {} },
          { tool: 'notes_test__getNote', arguments: 'n1' },
        ],
      },
      headers,
    ),
    400,
  );
  assert.deepEqual(
    (wrong.errors as { path: string }[]).map((e) => e.path),
    ['/calls/1/arguments'],
  );
  assert.doesNotMatch(String(wrong.detail), /actions/);
  const calls = Array.from({ length: 65 }, () => ({ tool: 'notes_test__listNotes', arguments: {} }));
  const tooMany = await expectProblem(await post(`${server.url}/v1/calls`, { calls }, headers), 400);
  assert.equal(tooMany.max_batch, 64);
  const trajectory = await json(await fetch(`${server.url}/v1/episodes/${id}`));
  assert.equal((trajectory.steps as unknown[]).length, 0, 'a refused batch records nothing');
});
