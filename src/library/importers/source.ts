/** Reading imported files: finding them, parsing JSON or YAML, and naming what is wrong where. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { ImportError } from './errors.js';

export type JsonObject = Record<string, unknown>;

/** An ImportError naming the file and, where there is one, the JSON Pointer of the offending value. */
export function invalid(file: string, pointer: string, problem: string): ImportError {
  return new ImportError(`${file}${pointer ? ` at ${pointer}` : ''}: ${problem}`);
}

/** Appends reference tokens to a JSON Pointer, escaped as RFC 6901 says. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, for error messages: "array", "string", "null"… */
export function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** A non-empty trimmed string, or undefined for anything else. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** "get_current_weather" or "getCurrentWeather" → "Get current weather": a description of last resort. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.\s]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
}

/**
 * The files to import: PATH itself when it is a file, else every file under it with one of `extensions`,
 * in a stable (sorted) order so that ids assigned on collision are the same on every import. Hidden entries are
 * skipped.
 */
export function listFiles(path: string, extensions: readonly string[]): string[] {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new ImportError(`${path}: no such file or directory`);
  }
  if (stats.isFile()) return [path];
  const files: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith('.'))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && extensions.includes(extname(entry.name).toLowerCase())) files.push(full);
    }
  };
  walk(path);
  if (files.length === 0) throw new ImportError(`${path}: no ${extensions.join(' or ')} files in this folder`);
  return files;
}

/** Parses a file as YAML when it is named .yaml/.yml, as JSON otherwise; a syntax error names the line and column. */
export function readDocument(file: string): unknown {
  let source: string;
  try {
    source = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw invalid(file, '', `cannot read: ${(error as Error).message}`);
  }
  if (source.trim() === '') throw invalid(file, '', 'the file is empty');
  return /\.ya?ml$/i.test(file) ? parseYaml(file, source) : parseJson(file, source);
}

function parseJson(file: string, source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const offset = jsonErrorOffset(message, source);
    // V8 quotes a raw snippet of the source (newlines and all) in some messages: keep the error one line.
    const what = message
      .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
      .replace(/(?: in JSON)? at position \d+.*$/s, '');
    const truncated = offset === undefined ? /end of JSON input/.test(message) : offset >= source.trimEnd().length;
    const where = offset === undefined ? '' : ` (${lineColumn(source, offset)})`;
    throw invalid(
      file,
      '',
      `not valid JSON: ${what}${where}${truncated ? '; the file ends too early (truncated?)' : ''}`,
    );
  }
}

/**
 * Where JSON.parse stopped. Most V8 messages say "at position N"; "Unexpected token" ones instead quote the
 * source around the token, 10 characters each side, "..." marking a cut, which locates it well enough.
 */
function jsonErrorOffset(message: string, source: string): number | undefined {
  const at = /at position (\d+)/.exec(message);
  if (at) return Number(at[1]);
  const quoted = /^Unexpected token .+?, (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/s.exec(message);
  if (!quoted) return undefined;
  const [, cutBefore, snippet = '', cutAfter] = quoted;
  const start = source.indexOf(snippet);
  if (start < 0 || (!cutBefore && !cutAfter)) return undefined;
  return cutBefore ? start + 10 : start + snippet.length - 10;
}

function parseYaml(file: string, source: string): unknown {
  const doc = parseDocument(source);
  const error = doc.errors[0];
  if (error) {
    // The message ends in a multi-line code frame: keep its first line, position in our own words.
    const what = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const pos = error.linePos?.[0];
    throw invalid(file, '', `not valid YAML: ${what}${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`);
  }
  return doc.toJS({ maxAliasCount: 1000 });
}

function lineColumn(source: string, offset: number): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
