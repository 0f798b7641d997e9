import { readFileSync, writeFileSync } from 'node:fs';
import { hash32 } from '../simulator/synth/random.js';

/**
 * The API-level split of `fidelity --examples` and of the value prior: which APIs are held out. An API is held out
 * when the hash of the split seed and its id falls under the share, so the decision for one API never depends on
 * which others the library has (a library built again, or grown, keeps its split).
 */
export function heldOutApis(apiIds: Iterable<string>, splitSeed: number, share: number): Set<string> {
  const out = new Set<string>();
  for (const api of apiIds) if (hash32(`${splitSeed}\u0000${api}`) / 2 ** 32 < share) out.add(api);
  return out;
}

/** A file of API ids, one a line (blank lines and `#` comments skipped). */
export function readApiList(file: string): Set<string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  return new Set(lines.map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#')));
}

export function writeApiList(file: string, apis: Iterable<string>): void {
  writeFileSync(file, `${[...apis].sort().join('\n')}\n`);
}
