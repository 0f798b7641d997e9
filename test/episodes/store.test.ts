import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EpisodeError } from '../../src/episodes/errors.js';
import { EpisodeStore, type EpisodeSimulator, type EpisodeStoreOptions } from '../../src/episodes/store.js';
import { LibraryStore } from '../../src/library/store.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { ErrorStream } from '../../src/simulator/inject.js';
import { openCache } from '../../src/simulator/cache.js';
import { untouchedBodyText } from '../../src/simulator/stored-result.js';
import { stepJson } from '../../src/episodes/step-json.js';
import type { SearchResult } from '../../src/retrieval/searcher.js';
import { join } from 'node:path';
import { tempDir } from '../fixtures/tools.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import type { CallResult } from '../../src/simulator/types.js';
import { episodeLibrary } from './fixture.js';

describe('EpisodeStore in process', () => {
  let library: LibraryStore;
  let search: ToolSearch;
  before(async () => {
    const dir = await episodeLibrary();
    library = LibraryStore.open(dir);
    search = ToolSearch.open(dir);
  });
  after(() => library.close());

  const storeWith = (options: Partial<EpisodeStoreOptions> = {}) =>
    new EpisodeStore({
      simulator: createSimulator({ store: library, responders: [synthResponder], errorRate: 0 }),
      library,
      search: () => Promise.resolve(search),
      ...options,
    });

  it(
    'expires idle episodes on the TTL, ' + 'counting from the last request, and frees their place under the cap',
    async (t) => {
      let now = 0;
      const store = storeWith({ now: () => now, ttlMs: 1000, maxEpisodes: 2 });
      t.after(() => store.close());
      const a = store.create({});
      const b = store.create({});
      assert.throws(
        () => store.create({}),
        (e: unknown) => e instanceof EpisodeError && e.status === 429,
      );
      now = 900;
      await store.step(a.id, { actions: [{ type: 'search_tool', query: 'pet' }] });
      now = 1500;
      assert.equal(store.sweep(), 1);
      assert.equal(store.get(b.id), undefined);
      assert.ok(store.get(a.id));
      now = 2600;
      assert.equal(store.summary(a.id), undefined);
      assert.equal(store.size, 0);
      store.create({});
      await assert.rejects(
        store.step(a.id, { actions: [{ type: 'search_tool', query: 'pet' }] }),
        (e: unknown) => e instanceof EpisodeError && e.status === 404,
      );
    },
  );

  it('counts its sweeps: how many, their time, the episodes the last one visited and those they dropped', (t) => {
    let now = 0;
    const store = storeWith({ now: () => now, ttlMs: 1000 });
    t.after(() => store.close());
    assert.deepEqual(store.sweepStats, { count: 0, seconds: 0, lastSeconds: 0, lastVisited: 0, expired: 0 });
    for (let i = 0; i < 3; i++) store.create({});
    assert.equal(store.sweep(), 0);
    now = 1500;
    store.create({});
    assert.equal(store.sweep(), 3);
    const stats = store.sweepStats;
    assert.equal(stats.count, 2);
    assert.equal(stats.lastVisited, 4);
    assert.equal(stats.expired, 3);
    assert.ok(stats.lastSeconds > 0 && stats.seconds >= stats.lastSeconds, JSON.stringify(stats));
  });

  it('call() runs one call inside the episode, recorded as a one-action step', async (t) => {
    const store = storeWith();
    t.after(() => store.close());
    const { id } = store.create({ max_steps: 2 });
    const created = await store.call(id, 'petstore_test__addPet', { name: 'Rex' });
    assert.deepEqual([created.status, created.state, created.step, created.done], [201, 'created', 1, false]);
    const read = await store.call(
      id,
      'petstore_test__getPetById',
      { petId: (created.body as { id: number }).id },
      { dynamic: true },
    );
    assert.deepEqual([read.status, read.source, read.state, read.step, read.done], [200, 'state', 'read', 2, true]);
    assert.deepEqual(store.get(id)!.steps[1]!.actions, [
      {
        type: 'tool_call',
        tool: 'petstore_test__getPetById',
        arguments: { petId: (created.body as { id: number }).id },
        controls: { dynamic: true },
      },
    ]);
    await assert.rejects(
      store.call(id, 'weather_forecast', { city: 'x' }),
      (e: unknown) => e instanceof EpisodeError && e.status === 409,
    );
    const other = store.create({});
    await assert.rejects(
      store.call(other.id, 'weather_forecast', [1]),
      (e: unknown) => e instanceof EpisodeError && e.status === 400 && e.errors?.[0]?.path === '/arguments',
    );
  });

  it('keeps a trajectory bounded: large bodies are stored as previews, the step answer stays whole', async (t) => {
    const big = { blob: 'x'.repeat(100_000) };
    const medium = { blob: 'y'.repeat(60_000) };
    const answers: Record<string, unknown> = { big, medium };
    const simulator: EpisodeSimulator = {
      errors: new ErrorStream(0, { errorRate: 0 }),
      errorStream: (seed) => new ErrorStream(seed, { errorRate: 0 }),
      call: async (_toolId, args): Promise<CallResult> => ({
        status: 200,
        body: answers[(args as { size: string }).size],
        source: 'synth',
        headers: {},
      }),
    };
    const store = storeWith({ simulator });
    t.after(() => store.close());
    const { id } = store.create({});
    const result = await store.step(id, {
      actions: [{ type: 'tool_call', tool: 'weather_forecast', arguments: { size: 'big' } }],
    });
    assert.deepEqual((result.observations[0] as { body: unknown }).body, big);
    for (let i = 0; i < 20; i++) await store.call(id, 'weather_forecast', { size: 'medium' });
    const stored = store.get(id)!.steps.map((s) => s.observations[0] as { body: unknown; truncated?: number });
    assert.equal(stored[0]!.truncated, JSON.stringify(big).length);
    assert.equal(typeof stored[0]!.body, 'string');
    assert.ok((stored[0]!.body as string).length <= 512);
    const kept = stored.slice(1).filter((o) => o.truncated === undefined).length;
    assert.equal(kept, Math.floor((1024 * 1024) / JSON.stringify(medium).length));
  });

  it(
    'an action that fails unexpectedly observes a 500 problem; ' +
      'the step is still recorded whole and numbered in turn',
    async (t) => {
      const real = createSimulator({ store: library, responders: [synthResponder], errorRate: 0 });
      const simulator: EpisodeSimulator = {
        errors: real.errors,
        errorStream: (seed) => real.errorStream(seed),
        call: async (toolId, args, options): Promise<CallResult> => {
          if (toolId === 'weather_forecast') throw new Error('disk on fire');
          // A body world state cannot copy (structuredClone refuses functions).
          if ((args as { title?: string }).title === 'unclonable')
            return { status: 201, body: { id: 'u1', title: 'x', hook: () => 1 }, source: 'synth', headers: {} };
          return real.call(toolId, args, options);
        },
      };
      const store = storeWith({ simulator, search: () => Promise.reject(new Error('no index here')) });
      t.after(() => store.close());
      const { id } = store.create({});
      const call = (tool: string, args: Record<string, unknown>) => ({ type: 'tool_call', tool, arguments: args });
      const first = await store.step(id, {
        actions: [
          call('notes_test__createNote', { title: 'kept' }),
          call('weather_forecast', { city: 'Oslo' }),
          { type: 'search_tool', query: 'pet' },
          call('notes_test__createNote', { title: 'unclonable' }),
        ],
      });
      const [created, failed, searched, unclonable] = first.observations as Record<string, any>[];
      assert.deepEqual([first.step, created!.status, created!.state], [1, 201, 'created']);
      assert.deepEqual([failed!.status, failed!.source, failed!.body.title], [500, 'rule', 'Simulator failed']);
      assert.match(failed!.body.detail, /disk on fire/);
      assert.deepEqual([searched!.results, searched!.problem.status], [[], 500]);
      assert.match(searched!.problem.detail, /no index here/);
      assert.deepEqual(
        [unclonable!.status, unclonable!.body.title, unclonable!.state],
        [500, 'World state failed', undefined],
      );

      const second = await store.call(id, 'notes_test__getNote', { noteId: created!.body.id });
      assert.deepEqual([second.step, second.state], [2, 'read']);
      const trajectory = store.get(id)!;
      assert.deepEqual(
        trajectory.steps.map((s) => s.step),
        [1, 2],
      );
      assert.deepEqual(
        [trajectory.counts.calls, trajectory.counts.failed_calls, trajectory.counts.searches],
        [4, 2, 1],
      );
    },
  );

  it('checks the tool ids of a config against the library ids without parsing their records', (t) => {
    const parsed: string[] = [];
    const counting = {
      get: (toolId: string) => {
        parsed.push(toolId);
        return library.get(toolId);
      },
      ids: () => library.ids(),
      apiOperations: (api: string) => library.apiOperations(api),
    };
    const store = storeWith({ library: counting });
    t.after(() => store.close());
    const summary = store.create({ tools: ['petstore_test__addPet', 'notes_test__getNote', 'weather_forecast'] });
    assert.deepEqual(summary.tools, ['petstore_test__addPet', 'notes_test__getNote', 'weather_forecast']);
    assert.throws(
      () => store.create({ tools: ['petstore_test__addPet', 'nope'] }),
      (e: unknown) => e instanceof EpisodeError && e.status === 404 && e.errors?.[0]?.path === '/tools/1',
    );
    assert.deepEqual(parsed, []);
  });

  it('sizes the live cap from the memory budget when none is given: 16 KiB an episode', (t) => {
    const small = storeWith({ maxBytes: 48 * 1024 });
    const fallback = storeWith();
    t.after(() => [small, fallback].forEach((store) => store.close()));
    assert.deepEqual([small.maxEpisodes, fallback.maxEpisodes], [3, 65_536]);
    for (let i = 0; i < 3; i++) small.create({});
    assert.throws(
      () => small.create({}),
      (e: unknown) => e instanceof EpisodeError && e.status === 429 && /the server's cap is 3/.test(e.message),
    );
  });

  it('rejects options that make no sense', () => {
    assert.throws(() => storeWith({ maxEpisodes: 0 }), RangeError);
    assert.throws(() => storeWith({ ttlMs: 0 }), RangeError);
    assert.throws(() => storeWith({ maxBytes: 0 }), RangeError);
  });
  it(
    "a cached body goes into the step's answer and the trajectory as its stored text, " + 'parsed only when read',
    async (t) => {
      const cache = openCache(join(tempDir(), 'responses.db'))!;
      const store = storeWith({
        simulator: createSimulator({ store: library, cache, responders: [synthResponder], errorRate: 0 }),
      });
      t.after(() => {
        store.close();
        cache.close();
      });
      const { id } = store.create({});
      const call = { type: 'tool_call', tool: 'petstore_test__listPets', arguments: { limit: 2 } };
      const first = await store.step(id, { actions: [call] });
      const second = await store.step(id, { actions: [call, { ...call, id: 'again' }] });
      assert.deepEqual(
        second.observations.map((o) => o.type === 'tool_call' && o.source),
        ['cache', 'cache'],
      );
      const stored = untouchedBodyText(second.observations[1]!);
      assert.equal(typeof stored, 'string', 'the body was not parsed on its way through the step');
      const answer = JSON.parse(stepJson(second)) as { observations: { body: unknown }[] };
      assert.deepEqual(answer, JSON.parse(JSON.stringify(second)));
      assert.deepEqual(answer.observations[0]!.body, (first.observations[0] as { body: unknown }).body);
      assert.deepEqual(Object.keys(answer.observations[1]!), ['type', 'id', 'tool', 'status', 'body', 'source']);
      const trajectory = JSON.stringify(store.get(id));
      assert.ok(
        Math.abs(store.bytes - trajectory.length) < 600,
        `store counts ${store.bytes}, the trajectory is ${trajectory.length}`,
      );
    },
  );

  it('remembers search results per index: the same query again does not search the library again', async (t) => {
    let searched = 0;
    const counting = {
      search: async (queries: string[], options: { k?: number }) => {
        searched++;
        return search.search(queries, options);
      },
    } as unknown as ToolSearch;
    const store = storeWith({ search: () => Promise.resolve(counting) });
    t.after(() => store.close());
    const hits: SearchResult[][] = [];
    for (const k of [3, 3, 2]) {
      const { id } = store.create({});
      const { observations } = await store.step(id, { actions: [{ type: 'search_tool', query: 'pet', k }] });
      hits.push((observations[0] as unknown as { results: SearchResult[] }).results);
    }
    assert.equal(searched, 2, 'k=3 twice, then k=2');
    assert.deepEqual(hits[1], hits[0]);
    assert.deepEqual(hits[2], hits[0]!.slice(0, 2));
  });
});
