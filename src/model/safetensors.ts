import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The parameters of a Hugging Face model directory, counted from its safetensors headers (an 8-byte length, then
 * JSON naming each tensor's shape): no weights are read and no Python starts.
 */
export function safetensorsParameters(dir: string): number {
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.safetensors'));
  } catch (error) {
    throw new Error(`${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (files.length === 0) throw new Error(`${dir} holds no .safetensors file: not a Hugging Face model directory`);
  let total = 0;
  for (const name of files) {
    for (const [key, entry] of Object.entries(header(join(dir, name)))) {
      if (key === '__metadata__') continue;
      total += (entry as { shape: number[] }).shape.reduce((a, b) => a * b, 1);
    }
  }
  return total;
}

function header(file: string): Record<string, unknown> {
  const fd = openSync(file, 'r');
  try {
    const size = Buffer.alloc(8);
    readSync(fd, size, 0, 8, 0);
    const length = Number(size.readBigUInt64LE(0));
    const json = Buffer.alloc(length);
    readSync(fd, json, 0, length, 8);
    return JSON.parse(json.toString('utf8')) as Record<string, unknown>;
  } finally {
    closeSync(fd);
  }
}
