import { readFileSync } from 'node:fs';
import { parseJsonArray, parseJsonLines, type Located } from './json-text.js';
import { readOwnTasks } from './load-own.js';
import { readToolbenchTasks } from './load-toolbench.js';
import { TaskFileError, type TaskFile, type TaskFormat } from './tasks.js';

/** Members only a ToolBench query has: one of them on the first task picks the ToolBench reader. */
const TOOLBENCH_MARKERS = ['query_id', 'api_list', 'relevant APIs', 'relevant_apis'];

/**
 * Reads a task file: JSON Lines or a JSON array, in the project's own format or ToolBench's, told apart by the
 * first task's members unless `format` says which.
 */
export function loadTasks(file: string, format?: TaskFormat): TaskFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TaskFileError(`cannot read task file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // A byte-order mark (editors on Windows write one) is not JSON.
  text = text.replace(/^\uFEFF/, '');
  const entries = text.trimStart().startsWith('[') ? parseJsonArray(text, file) : parseJsonLines(text, file);
  if (entries.length === 0) throw new TaskFileError(`${file}: holds no tasks`);
  const chosen = format ?? detectFormat(entries);
  const tasks = chosen === 'toolbench' ? readToolbenchTasks(entries, file) : readOwnTasks(entries, file);
  return { file, format: chosen, tasks };
}

function detectFormat(entries: Located[]): TaskFormat {
  const first = entries[0]!.value;
  if (typeof first === 'object' && first !== null && TOOLBENCH_MARKERS.some((key) => Object.hasOwn(first, key))) return 'toolbench';
  return 'own';
}
