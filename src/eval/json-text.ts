import { TaskFileError } from './tasks.js';

/** A parsed value and the 1-based line of the file it starts on. */
export interface Located {
  value: unknown;
  line: number;
}

/** JSON Lines: one value per line, blank lines skipped; a line that is not JSON is a TaskFileError at file:line. */
export function parseJsonLines(text: string, file: string): Located[] {
  const out: Located[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      out.push({ value: JSON.parse(line), line: i + 1 });
    } catch (error) {
      throw new TaskFileError(`${file}:${i + 1}: not JSON (${reason(error)})`);
    }
  });
  return out;
}

/** A JSON document that is an array: each element with the line it starts on, so errors can name it. */
export function parseJsonArray(text: string, file: string): Located[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /at position (\d+)/.exec(reason(error));
    const where = position ? `:${lineAt(text, Number(position[1]))}` : '';
    throw new TaskFileError(`${file}${where}: not JSON (${reason(error)})`);
  }
  if (!Array.isArray(value))
    throw new TaskFileError(
      `${file}: expected a JSON array of tasks (or JSON Lines), got ${value === null ? 'null' : typeof value}`,
    );
  const lines = elementLines(text);
  return value.map((element, i) => ({ value: element, line: lines[i] ?? 1 }));
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Where each element of the top-level array starts: a scan that tracks only nesting depth and strings. */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (depth === 1 && expectElement && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectElement = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectElement = true;
  }
  return lines;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
