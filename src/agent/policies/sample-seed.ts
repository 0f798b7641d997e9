import { createHash } from 'node:crypto';

/**
 * The sampling seed of one turn: a hash of (the policy's seed, the run's seed, the turn), so every run and every turn
 * draws its own stream while the same three values draw the same one again. 31 bits: a non-negative integer every
 * sampler and OpenAI-compatible server takes.
 */
export function sampleSeed(policySeed: number | undefined, runSeed: number | undefined, turn: number): number {
  return (
    createHash('sha256')
      .update(`${policySeed ?? ''}\u0000${runSeed ?? ''}\u0000${turn}`)
      .digest()
      .readUInt32BE(0) >>> 1
  );
}
