import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CacheError, type CacheEntry, type ImportEntry } from './cache.js';
import { isJsonObject } from './validate.js';

/** The JSON Lines format of `cache export` / `cache import`: one CacheEntry per line. */

export function exportLine(entry: CacheEntry): string {
  const { tool, arguments: args, status, body, source, created_at, last_hit_at, hits } = entry;
  return `${JSON.stringify({ tool, arguments: args, status, body, source, created_at, hits, last_hit_at })}\n`;
}

const SOURCE = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Reads an export file line by line, synchronously (so that `ResponseCache.import` can run it inside one
 * transaction). Blank lines are skipped; anything else must be an entry, or a CacheError names the file and line.
 */
export function* readExportFile(file: string): Generator<ImportEntry> {
  let number = 0;
  for (const line of readLines(file)) {
    number++;
    if (line.trim() === '') continue;
    yield parseEntry(line, `${file}:${number}`);
  }
}

export function parseEntry(line: string, where: string): ImportEntry {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new CacheError(`${where}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const bad = (what: string): never => {
    throw new CacheError(`${where}: ${what}`);
  };
  if (!isJsonObject(value)) return bad('expected an object {tool, arguments, status, body, source, …}');
  const { tool, arguments: args, status, body, source, created_at, last_hit_at, hits } = value;
  if (typeof tool !== 'string' || tool === '') bad('"tool" must be a non-empty string');
  if (!isJsonObject(args)) bad('"arguments" must be a JSON object');
  if (!(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599))
    bad('"status" must be an HTTP status (100–599)');
  if (!('body' in value)) bad('"body" is missing');
  if (source !== undefined && !(typeof source === 'string' && SOURCE.test(source)))
    bad('"source" must be a short lower-case name such as "synth"');
  if (created_at !== undefined && !isTime(created_at)) bad('"created_at" must be an ISO 8601 time');
  if (last_hit_at !== undefined && last_hit_at !== null && !isTime(last_hit_at))
    bad('"last_hit_at" must be an ISO 8601 time or null');
  if (hits !== undefined && !(typeof hits === 'number' && Number.isSafeInteger(hits) && hits >= 0))
    bad('"hits" must be a non-negative integer');
  return {
    tool: tool as string,
    arguments: args as Record<string, unknown>,
    status: status as number,
    body,
    source: (source as string | undefined) ?? 'import',
    created_at: created_at as string | undefined,
    last_hit_at: last_hit_at as string | null | undefined,
    hits: hits as number | undefined,
  };
}

function isTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

/** Lines of a UTF-8 file, read in 1 MiB chunks (memory stays flat on multi-gigabyte exports). */
function* readLines(file: string): Generator<string> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new CacheError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const buffer = Buffer.alloc(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const lines = (rest + decoder.write(buffer.subarray(0, read))).split('\n');
      rest = lines.pop()!;
      yield* lines;
    }
    rest += decoder.end();
    if (rest !== '') yield rest;
  } finally {
    closeSync(fd);
  }
}
