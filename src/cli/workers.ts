import { availableParallelism } from 'node:os';
import { intFlag } from './output.js';

/** The most worker processes `--workers` accepts. */
const MAX_WORKERS = 256;

/** `--workers`: a count of processes, or `auto` for one per core this process may use. */
export function workersFlag(value: string): number {
  return value.trim() === 'auto' ? availableParallelism() : intFlag('--workers', value, { min: 1, max: MAX_WORKERS });
}
