import { readFileSync } from 'node:fs';

/** A variable of a running process's environment (the primary hands each worker its index and socket directory). */
export function environ(pid: number, name: string): string | undefined {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((line) => line.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}

/** Polls until `condition` holds, or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
