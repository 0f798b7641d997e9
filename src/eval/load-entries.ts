import { readFileSync } from 'node:fs';
import { parseJsonArray, parseJsonLines, type Located } from './json-text.js';
import { TaskFileError } from './tasks.js';

/** A file's JSON values with their lines: JSON Lines, or the elements of a JSON array. */
export function readEntries(file: string, what = 'task file'): Located[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TaskFileError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  // A byte-order mark (editors on Windows write one) is not JSON.
  text = text.replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith('[')) return parseJsonLines(text, file);
  try {
    return parseJsonArray(text, file);
  } catch (error) {
    // JSON Lines whose lines are arrays (API-Bank dialogs, one per line) start with '[' too.
    if (firstLineParses(text)) return parseJsonLines(text, file);
    throw error;
  }
}

function firstLineParses(text: string): boolean {
  try {
    JSON.parse(text.trimStart().split(/\r?\n/, 1)[0]!);
    return true;
  } catch {
    return false;
  }
}
