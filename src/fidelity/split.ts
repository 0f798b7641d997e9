import { readFileSync, writeFileSync } from 'node:fs';
import { hash32 } from '../simulator/synth/random.js';

/**
 * The split of `fidelity --examples` and of the value prior: which ids (APIs, or operations: tool ids) are held out.
 * An id is held out when the hash of the split seed and the id falls under the share, so the decision for one never
 * depends on which others the library has (a library built again, or grown, keeps its split).
 */
export function heldOutIds(ids: Iterable<string>, splitSeed: number, share: number): Set<string> {
  const out = new Set<string>();
  for (const id of ids) if (hash32(`${splitSeed}\u0000${id}`) / 2 ** 32 < share) out.add(id);
  return out;
}

/** A file of ids (APIs or operations), one a line (blank lines and `#` comments skipped). */
export function readIdList(file: string): Set<string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  return new Set(lines.map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#')));
}

export function writeIdList(file: string, ids: Iterable<string>): void {
  writeFileSync(file, `${[...ids].sort().join('\n')}\n`);
}
