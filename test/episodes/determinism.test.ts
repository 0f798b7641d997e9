import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { call, createEpisode, startEpisodeServer, step } from './fixture.js';

type Json = Record<string, any>;

/**
 * Twelve calls in three steps of four parallel actions; what each observed, less where a simulated body came from (a
 * first run fills the cache).
 */
async function run(url: string, config: Json): Promise<{ seed: number; observed: unknown[] }> {
  const { id, seed } = await createEpisode(url, config);
  const observed: unknown[] = [];
  for (let s = 0; s < 3; s++) {
    const actions = [0, 1, 2, 3].map((i) => call('weather_forecast', { city: `city-${s}-${i}` }));
    const result = await step(url, id, actions);
    observed.push(
      ...result.observations.map(({ source, ...rest }: Json) => ({
        ...rest,
        simulated: source === 'cache' || source === 'synth',
      })),
    );
  }
  return { seed, observed };
}

const injected = (observed: unknown[]) => observed.map((o) => (o as Json).error ?? null);

describe('reproducibility under seeds', () => {
  let server: RunningServer;
  before(async () => {
    server = await startEpisodeServer();
  });
  after(() => server.close());

  it('the same seed gives the same injected errors and bodies; different seeds differ', async () => {
    const first = await run(server.url, { seed: 42, error_rate: 0.5 });
    const again = await run(server.url, { seed: 42, error_rate: 0.5 });
    assert.deepEqual(again.observed, first.observed);
    const errors = injected(first.observed);
    assert.ok(errors.some((e) => e !== null) && errors.some((e) => e === null), JSON.stringify(errors));
    const other = await run(server.url, { seed: 43, error_rate: 0.5 });
    assert.notDeepEqual(injected(other.observed), errors);
  });

  it('a derived seed is reported, and replaying it reproduces the episode', async () => {
    const original = await run(server.url, { error_rate: 0.5 });
    const replay = await run(server.url, { seed: original.seed, error_rate: 0.5 });
    assert.deepEqual(replay.observed, original.observed);
  });

  it('error_rate 0 injects nothing whatever the seed', async () => {
    const { observed } = await run(server.url, { seed: 42, error_rate: 0 });
    assert.deepEqual(
      injected(observed),
      observed.map(() => null),
    );
  });
});
