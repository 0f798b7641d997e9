import { createHash } from 'node:crypto';

/**
 * The episode seed of one task-run: a function of (seed, task, run) alone, so a rerun meets the same injected errors.
 */
export function episodeSeed(seed: number, taskId: string, run: number): number {
  // 31 bits: a non-negative integer every JSON reader and seeded generator takes as is.
  return createHash('sha256').update(`${seed}\u0000${taskId}\u0000${run}`).digest().readUInt32BE(0) >>> 1;
}
