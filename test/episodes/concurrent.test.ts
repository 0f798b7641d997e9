import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { call, createEpisode, json, search, startEpisodeServer, step } from './fixture.js';

type Json = Record<string, any>;
const EPISODES = 100;

/**
 * One rollout: four steps of parallel actions, each step built from what the earlier ones observed. Even episodes
 * inject errors, odd ones none.
 */
async function rollout(url: string, n: number): Promise<{ id: string; steps: Json[]; mine: Json[] }> {
  const { id } = await createEpisode(url, { seed: 1000 + n, error_rate: n % 2 === 0 ? 0.2 : 0 });
  const steps: Json[] = [];
  const mine: Json[] = [];
  const first = await step(url, id, [
    search('create a note'),
    call('notes_test__createNote', { title: `e${n}-a`, tag: 'home' }),
    call('notes_test__createNote', { title: `e${n}-b`, tag: 'work' }),
    call('petstore_test__addPet', { name: `pet-${n}` }),
  ]);
  steps.push(first);
  const created = first.observations.slice(1).filter((o: Json) => o.status === 201);
  mine.push(...created.map((o: Json) => o.body));
  const notes = created.filter((o: Json) => o.tool === 'notes_test__createNote').map((o: Json) => o.body);
  const reads = created.map((o: Json) =>
    o.tool === 'petstore_test__addPet'
      ? call('petstore_test__getPetById', { petId: o.body.id })
      : call('notes_test__getNote', { noteId: o.body.id }),
  );
  steps.push(await step(url, id, [...reads, call('notes_test__listNotes', {}), call('petstore_test__listPets', {})]));
  const [keep, drop] = notes;
  steps.push(
    await step(url, id, [
      ...(keep ? [call('notes_test__updateNote', { noteId: keep.id, title: `e${n}-a2` })] : []),
      ...(drop ? [call('notes_test__deleteNote', { noteId: drop.id })] : []),
      call('notes_test__listNotes', { tag: 'home' }),
    ]),
  );
  steps.push(
    await step(url, id, [
      ...notes.map((note: Json) => call('notes_test__getNote', { noteId: note.id })),
      call('notes_test__listNotes', {}),
    ]),
  );
  return { id, steps, mine };
}

/**
 * Observations without where a simulated body came from: a first run answers from the synthesizer, a second from the
 * cache it filled.
 */
const comparable = (steps: Json[]) =>
  steps.map((s) => ({
    ...s,
    observations: s.observations.map(({ source, ...rest }: Json) => ({
      ...rest,
      source: source === 'cache' ? 'synth' : source,
    })),
  }));

/** Every resource body an observation carries: the body, or the items of a list. */
function resources(observation: Json): Json[] {
  const body = observation.body;
  if (Array.isArray(body)) return body;
  if (body && Array.isArray(body.items)) return body.items;
  return body && typeof body === 'object' ? [body] : [];
}

describe(`${EPISODES} concurrent episodes with parallel actions`, () => {
  let server: RunningServer;
  before(async () => {
    server = await startEpisodeServer();
  });
  after(() => server.close());

  it('stay isolated and reproduce under their seeds', async () => {
    const round = await Promise.all(Array.from({ length: EPISODES }, (_, n) => rollout(server.url, n)));
    assert.equal(server.episodes.size, EPISODES);
    let injected = 0;
    let stateful = 0;
    round.forEach(({ steps, mine }, n) => {
      for (const observation of steps.flatMap((s) => s.observations) as Json[]) {
        if (observation.error) injected++;
        if (observation.state) stateful++;
        if (observation.type !== 'tool_call' || observation.status >= 400) continue;
        // Names made by the rollouts: each episode sees only its own.
        for (const resource of resources(observation)) {
          const name = String(resource.title ?? resource.name ?? '');
          const owner = /^e(\d+)-/.exec(name)?.[1] ?? /^pet-(\d+)$/.exec(name)?.[1];
          if (owner !== undefined) assert.equal(Number(owner), n, `episode ${n} saw ${name}`);
        }
      }
      const [, reads] = steps;
      const readBack = (reads!.observations as Json[]).filter((o) => o.state === 'read').map((o) => o.body);
      for (const body of readBack)
        assert.ok(
          mine.some((m) => m.id === body.id),
          `episode ${n} read back ${JSON.stringify(body)}`,
        );
    });
    assert.ok(injected > 0, 'errors were injected');
    assert.ok(stateful > EPISODES, 'world state answered');

    // Each episode reads its own first note and the next episode's by id, in one step and with no controls: its own
    // is in its world, the other's is not, so the simulator answers that one. Reads an error was injected into
    // check nothing; the odd episodes inject none.
    let checked = 0;
    await Promise.all(
      round.map(async ({ id, mine }, n) => {
        const own = mine.find((m) => typeof m.id === 'string');
        const other = round[(n + 1) % EPISODES]!.mine.find((m) => typeof m.id === 'string');
        if (!own || !other) return;
        const [ownRead, otherRead] = (
          await step(server.url, id, [
            call('notes_test__getNote', { noteId: own.id }),
            call('notes_test__getNote', { noteId: other.id }),
          ])
        ).observations;
        if (!ownRead.error)
          assert.deepEqual([ownRead.state, ownRead.body.id], ['read', own.id], `episode ${n} reads its own note`);
        if (otherRead.error) return;
        checked++;
        assert.notEqual(
          otherRead.source,
          'state',
          `episode ${n} read episode ${(n + 1) % EPISODES}'s note from its world`,
        );
        assert.equal(otherRead.state, undefined);
        assert.notEqual(otherRead.body.title, other.title);
      }),
    );
    assert.ok(checked >= EPISODES / 2, `${checked} cross-episode reads checked`);

    const replay = await Promise.all(Array.from({ length: EPISODES }, (_, n) => rollout(server.url, n)));
    replay.forEach(({ steps }, n) => assert.deepEqual(comparable(steps), comparable(round[n]!.steps), `episode ${n}`));

    const trajectory = await json(await fetch(`${server.url}/v1/episodes/${round[0]!.id}`));
    assert.equal(trajectory.counts.steps, 5);
    assert.deepEqual(
      trajectory.steps.slice(0, 4).map((s: Json) => s.observations),
      round[0]!.steps.map((s) => s.observations),
    );
  });
});
