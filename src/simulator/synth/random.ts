import type { Randomizer } from '@faker-js/faker';
import { canonicalJson } from '../canonical.js';

/** FNV-1a over UTF-16 code units, finished with murmur3's mixer so that nearby inputs land far apart. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The seed of one call: the same tool, canonical arguments and server seed always give the same body. */
export function callSeed(toolId: string, args: unknown, seed: number): number {
  return hash32(`${toolId}\u0000${canonicalJson(args)}\u0000${seed}`);
}

/**
 * mulberry32: one 32-bit word of state, so reseeding per call costs nothing (faker's Mersenne Twister spends
 * ~45 µs on it). Also faker's randomizer, so faker's values and the walker's choices come from one stream.
 */
export class Rng implements Randomizer {
  private state = 0;

  constructor(seed = 0) {
    this.seed(seed);
  }

  seed(seed: number | number[]): void {
    this.state = Array.isArray(seed) ? hash32(seed.join(',')) : seed >>> 0;
  }

  /** A float in [0, 1). An arrow function because faker calls it detached from the instance. */
  readonly next = (): number => {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  /** An integer in [min, max], both included (assumed finite, min ≤ max). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
