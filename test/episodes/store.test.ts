import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EpisodeError } from '../../src/episodes/errors.js';
import { EpisodeStore, type EpisodeSimulator } from '../../src/episodes/store.js';
import { LibraryStore } from '../../src/library/store.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { ErrorStream } from '../../src/simulator/inject.js';
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

  const storeWith = (options: { simulator?: EpisodeSimulator; now?: () => number; ttlMs?: number; maxEpisodes?: number } = {}) => {
    const store = new EpisodeStore({
      simulator: options.simulator ?? createSimulator({ store: library, responders: [synthResponder], errorRate: 0 }),
      library,
      search: () => Promise.resolve(search),
      ...options,
    });
    return store;
  };

  it('expires idle episodes on the TTL, counting from the last request, and frees their place under the cap', async (t) => {
    let now = 0;
    const store = storeWith({ now: () => now, ttlMs: 1000, maxEpisodes: 2 });
    t.after(() => store.close());
    const a = store.create({});
    const b = store.create({});
    assert.throws(() => store.create({}), (e: unknown) => e instanceof EpisodeError && e.status === 429);
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
    await assert.rejects(store.step(a.id, { actions: [{ type: 'search_tool', query: 'pet' }] }), (e: unknown) => e instanceof EpisodeError && e.status === 404);
  });

  it('call() runs one call inside the episode, recorded as a one-action step', async (t) => {
    const store = storeWith();
    t.after(() => store.close());
    const { id } = store.create({ max_steps: 2 });
    const created = await store.call(id, 'petstore_test__addPet', { name: 'Rex' });
    assert.deepEqual([created.status, created.state, created.step, created.done], [201, 'created', 1, false]);
    const read = await store.call(id, 'petstore_test__getPetById', { petId: (created.body as { id: number }).id }, { dynamic: true });
    assert.deepEqual([read.status, read.source, read.state, read.step, read.done], [200, 'state', 'read', 2, true]);
    assert.deepEqual(store.get(id)!.steps[1]!.actions, [{ type: 'tool_call', tool: 'petstore_test__getPetById', arguments: { petId: (created.body as { id: number }).id }, controls: { dynamic: true } }]);
    await assert.rejects(store.call(id, 'weather_forecast', { city: 'x' }), (e: unknown) => e instanceof EpisodeError && e.status === 409);
    const other = store.create({});
    await assert.rejects(store.call(other.id, 'weather_forecast', [1]), (e: unknown) => e instanceof EpisodeError && e.status === 400 && e.errors?.[0]?.path === '/arguments');
  });

  it('keeps a trajectory bounded: large bodies are stored as previews, the step answer stays whole', async (t) => {
    const big = { blob: 'x'.repeat(100_000) };
    const medium = { blob: 'y'.repeat(60_000) };
    const answers: Record<string, unknown> = { big, medium };
    const simulator: EpisodeSimulator = {
      seed: 0,
      errors: new ErrorStream(0, { errorRate: 0 }),
      errorStream: (seed) => new ErrorStream(seed, { errorRate: 0 }),
      call: async (toolId, args): Promise<CallResult> => ({ status: 200, body: answers[(args as { size: string }).size], source: 'synth', headers: {} }),
    };
    const store = storeWith({ simulator });
    t.after(() => store.close());
    const { id } = store.create({});
    const result = await store.step(id, { actions: [{ type: 'tool_call', tool: 'weather_forecast', arguments: { size: 'big' } }] });
    assert.deepEqual((result.observations[0] as { body: unknown }).body, big);
    for (let i = 0; i < 20; i++) await store.call(id, 'weather_forecast', { size: 'medium' });
    const stored = store.get(id)!.steps.map((s) => s.observations[0] as { body: unknown; truncated?: number });
    assert.equal(stored[0]!.truncated, JSON.stringify(big).length);
    assert.equal(typeof stored[0]!.body, 'string');
    assert.ok((stored[0]!.body as string).length <= 512);
    const kept = stored.slice(1).filter((o) => o.truncated === undefined).length;
    assert.equal(kept, Math.floor((1024 * 1024) / JSON.stringify(medium).length));
  });

  it('rejects options that make no sense', () => {
    assert.throws(() => storeWith({ maxEpisodes: 0 }), RangeError);
    assert.throws(() => storeWith({ ttlMs: 0 }), RangeError);
  });
});
