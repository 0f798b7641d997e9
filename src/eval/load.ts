import type { Located } from './json-text.js';
import { readApibankTasks } from './load-apibank.js';
import { readBfclTasks } from './load-bfcl.js';
import { readEntries } from './load-entries.js';
import { readMcpTasks } from './load-mcp.js';
import { readOwnTasks } from './load-own.js';
import { readToolbenchTasks } from './load-toolbench.js';
import { TaskFileError, type LoadedTask, type TaskFile, type TaskFormat } from './tasks.js';

const READERS: Record<TaskFormat, (entries: Located[], file: string) => LoadedTask[]> = {
  own: readOwnTasks,
  toolbench: readToolbenchTasks,
  bfcl: readBfclTasks,
  apibank: readApibankTasks,
  mcp: readMcpTasks,
};

/** Members only a ToolBench query has: one of them on the first task picks the ToolBench reader. */
const TOOLBENCH_MARKERS = ['query_id', 'api_list', 'relevant APIs', 'relevant_apis'];
/** Members of API-Bank's dialog turns, level-3 requirements and step samples. */
const APIBANK_MARKERS = ['role', 'requirement', 'apis', 'expected_output', 'api_id'];
/** Members of a BFCL entry or its possible answer (a `question` that is a list of turns tells BFCL too). */
const BFCL_MARKERS = ['function', 'ground_truth'];

/**
 * Reads a task file: JSON Lines or a JSON array, in the project's own format, ToolBench's, BFCL's, API-Bank's or an
 * MCP-style set, told apart by the first task's members unless `format` says which.
 */
export function loadTasks(file: string, format?: TaskFormat): TaskFile {
  const entries = readEntries(file);
  if (entries.length === 0) throw new TaskFileError(`${file}: holds no tasks`);
  const chosen = format ?? detectFormat(entries);
  return { file, format: chosen, tasks: READERS[chosen](entries, file) };
}

function detectFormat(entries: Located[]): TaskFormat {
  const first = entries[0]!.value;
  // An API-Bank dialog per line: a list of turns.
  if (Array.isArray(first)) return 'apibank';
  if (typeof first !== 'object' || first === null) return 'own';
  const has = (key: string) => Object.hasOwn(first, key);
  if (TOOLBENCH_MARKERS.some(has)) return 'toolbench';
  if (APIBANK_MARKERS.some(has)) return 'apibank';
  if (BFCL_MARKERS.some(has) || Array.isArray((first as { question?: unknown }).question)) return 'bfcl';
  // MCP-style tools are tools/list objects; the own format's are ids.
  const tools = (first as { tools?: unknown }).tools;
  if (Array.isArray(tools) && tools.some((t) => typeof t === 'object' && t !== null)) return 'mcp';
  return 'own';
}
