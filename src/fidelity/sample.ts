import { Rng } from '../simulator/synth/random.js';

/**
 * `n` ids drawn without replacement by a seeded partial Fisher–Yates shuffle: the same ids and seed always give the
 * same sample, in the same order. All of them (shuffled) when there are no more than `n`.
 */
export function sampleIds(ids: readonly string[], n: number, seed: number): string[] {
  const pool = [...ids];
  const rng = new Rng(seed);
  const take = Math.min(n, pool.length);
  for (let i = 0; i < take; i++) {
    const j = rng.int(i, pool.length - 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, take);
}
