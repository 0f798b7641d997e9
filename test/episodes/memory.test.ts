import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EpisodeError } from '../../src/episodes/errors.js';
import { EPISODE_BODY_BUDGET } from '../../src/episodes/limits.js';
import { EpisodeStore, type EpisodeSimulator, type EpisodeStoreOptions } from '../../src/episodes/store.js';
import type { ToolCallAction, TruncatedToolCallAction } from '../../src/wire/episodes.js';
import { LibraryStore } from '../../src/library/store.js';
import { schemasDir } from '../../src/paths.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { createApp } from '../../src/server/app.js';
import { createAjv } from '../../src/library/ajv.js';
import { ErrorStream } from '../../src/simulator/inject.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { episodeLibrary } from './fixture.js';

const ajv = createAjv();
ajv.addSchema(JSON.parse(readFileSync(join(schemasDir, 'trajectory.schema.json'), 'utf8')) as object);
const validTrajectory = ajv.getSchema('https://toolenv.dev/schemas/trajectory.schema.json#/$defs/Trajectory')!;

/** Answers every call with a small body, so that what an episode holds is what it was sent. */
const simulator: EpisodeSimulator = {
  errors: new ErrorStream(0, { errorRate: 0 }),
  errorStream: (seed) => new ErrorStream(seed, { errorRate: 0 }),
  call: async () => ({ status: 200, body: { ok: true }, source: 'synth', headers: {} }),
};

/** One step of 64 calls, each with 15 KiB of arguments: the flood a client can send under the 1 MiB body limit. */
const flood = (step: number) => ({
  actions: Array.from({ length: 64 }, (_, i) => ({
    type: 'tool_call',
    tool: 'weather_forecast',
    arguments: { city: `${step}-${i}-${'x'.repeat(15 * 1024)}` },
  })),
});

describe('episode memory', () => {
  let library: LibraryStore;
  let search: ToolSearch;
  before(async () => {
    const dir = await episodeLibrary();
    library = LibraryStore.open(dir);
    search = ToolSearch.open(dir);
  });
  after(() => library.close());

  const storeWith = (options: Partial<EpisodeStoreOptions> = {}) =>
    new EpisodeStore({ simulator, library, search: () => Promise.resolve(search), ...options });

  it(
    'counts call arguments and search results against the episode budget, ' + 'keeping previews and sizes past it',
    async (t) => {
      const store = storeWith();
      t.after(() => store.close());
      const { id } = store.create({ max_steps: 100 });
      const sent = Array.from({ length: 20 }, (_, s) => flood(s));
      for (const request of sent) await store.step(id, request);
      await store.step(id, { actions: [{ type: 'search_tool', query: 'pet', k: 5 }] });

      const trajectory = store.get(id)!;
      const text = JSON.stringify(trajectory);
      const raw = JSON.stringify(sent).length;
      assert.ok(
        text.length < EPISODE_BODY_BUDGET + 400 * 1024,
        `the trajectory holds ${text.length} bytes of JSON for ${raw} sent`,
      );
      assert.ok(
        Math.abs(store.bytes - text.length) < 2048,
        `store counts ${store.bytes}, the trajectory is ${text.length}`,
      );
      assert.ok(validTrajectory(trajectory), JSON.stringify(validTrajectory.errors));

      // A call as kept: whole, or cut (then `truncated` and `arguments_preview` say so).
      const actions = trajectory.steps
        .slice(0, 20)
        .flatMap((s) => s.actions as (ToolCallAction & Partial<TruncatedToolCallAction>)[]);
      const arguments_ = sent.flatMap((request) => request.actions.map((action) => action.arguments));
      assert.deepEqual(
        actions.slice(0, 64).map((a) => a.arguments),
        arguments_.slice(0, 64),
      );
      const firstCut = actions.findIndex((a) => a.truncated !== undefined);
      assert.ok(firstCut >= 64 && firstCut < 80, `first truncated action: ${firstCut}`);
      actions.slice(firstCut).forEach((action, i) => {
        const full = JSON.stringify(arguments_[firstCut + i]);
        assert.deepEqual(action.arguments, {});
        assert.equal(action.truncated, Buffer.byteLength(full));
        assert.ok(full.startsWith(action.arguments_preview!) && action.arguments_preview!.length <= 512);
      });
      assert.equal(actions[firstCut]!.arguments_preview!.length, 512);
      assert.equal(actions[actions.length - 1]!.arguments_preview, '', 'no previews once the budget is spent');

      // Past the budget a search keeps only the size of its results; the working set still gains what it found.
      const found = trajectory.steps[20]!.observations[0]!;
      assert.ok(found.type === 'search_tool');
      assert.deepEqual([found.results, found.results_preview], [[], '']);
      assert.ok(found.truncated! > 0);
      const [hits = []] = await search.search(['pet'], { k: 5 });
      assert.deepEqual(
        trajectory.working_set,
        hits.map((hit) => hit.id),
      );
    },
  );

  it('refuses new episodes with a 429 naming the byte budget once the live ones hold it, until one goes', async (t) => {
    const store = storeWith({ maxBytes: 512 * 1024 });
    t.after(() => store.close());
    const big = store.create({});
    store.create({});
    await store.step(big.id, flood(0));
    assert.ok(store.bytes >= 512 * 1024, String(store.bytes));
    assert.throws(
      () => store.create({}),
      (e: unknown) =>
        e instanceof EpisodeError &&
        e.status === 429 &&
        /the 2 live episodes hold \d+\.\d MiB .* past the server's 0\.5 MiB budget/.test(e.message),
    );
    const app = createApp({
      store: library,
      simulator: createSimulator({ store: library, responders: [synthResponder] }),
      episodes: store,
      log: () => {},
    });
    const refused = await app.request('/v1/episodes', { method: 'POST' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    assert.match(
      ((await refused.json()) as { detail: string }).detail,
      /MiB of trajectories and world state, past the server's 0\.5 MiB budget for them: DELETE finished ones/,
    );

    assert.ok(store.delete(big.id));
    assert.ok(store.bytes < 4096);
    assert.equal((await app.request('/v1/episodes', { method: 'POST' })).status, 201);
  });

  it(
    "keeps the live episodes' bytes as they change: steps, " +
      'text turns, deletes, expiry, and a step that ends after its delete',
    async (t) => {
      let clock = 0;
      const store = storeWith({ ttlMs: 1000, now: () => clock });
      t.after(() => store.close());
      const live = new Set<string>();
      const sum = () => [...live].reduce((total, id) => total + (store.episode(id)?.bytes ?? 0), 0);
      const call: ToolCallAction = { type: 'tool_call', tool: 'weather_forecast', arguments: { city: 'Paris' } };
      const ids = Array.from({ length: 4 }, () => store.create({}).id);
      ids.forEach((id) => live.add(id));
      await store.step(ids[0]!, { actions: [call, { ...call, arguments: { city: 'x'.repeat(4096) } }] });
      await store.turn(ids[1]!, { text: '<think>Find it.</think>\n<search_tool>weather forecast</search_tool>' });
      await store.turn(ids[1]!, {
        text:
          '<think>Call.</think>\n<tool_call>{"tool": ' +
          '"weather_forecast", "arguments": {"city": "Oslo"}}</tool_call>',
      });
      assert.ok(store.bytes > 4096);
      assert.equal(store.bytes, sum());
      // A step in flight when its episode is deleted adds nothing once it ends.
      const running = store.step(ids[2]!, { actions: [{ ...call, arguments: { city: 'y'.repeat(4096) } }] });
      store.delete(ids[2]!);
      live.delete(ids[2]!);
      await running;
      assert.equal(store.bytes, sum());
      clock = 5000;
      assert.equal(store.sweep(), 3);
      assert.equal(store.bytes, 0);
    },
  );
});
