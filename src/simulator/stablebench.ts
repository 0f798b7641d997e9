import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../library/tool.js';
import { CacheError, type ImportEntry } from './cache.js';
import { parsePythonLiteral } from './pyliteral.js';
import { isJsonObject } from './validate.js';

/**
 * StableToolBench's response cache (`server/tool_response_cache`): `<Category>/<tool>_for_<Category>/<api>.json`,
 * each file mapping `str(tool_input)` (a Python repr of the arguments, sometimes JSON) to `{"error", "response"}`.
 * Directory and file names are ToolBench's `standardize()` of the tool and API names, which is how they are
 * matched to library tools imported from ToolBench (origin `toolbench`).
 */

export const STABLEBENCH_SOURCE = 'stabletoolbench';

/**
 * ToolBench's `standardize`: anything but letters, digits, `_`, `^` and CJK becomes `_`, runs collapse, ends trim,
 * lower case; a leading digit gets `get_`.
 */
export function standardize(name: string): string {
  const cleaned = name
    .replace(/[^\u4e00-\u9fa5a-zA-Z0-9_^]/g, '_')
    .replace(/_+/g, '_')
    .toLowerCase()
    .replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(cleaned) ? `get_${cleaned}` : cleaned;
}

/** ToolBench's `change_name`: API names that are Python keywords (or look like them) get an `is_` prefix. */
export function changeName(name: string): string {
  return ['from', 'class', 'return', 'false', 'true', 'id', 'and'].includes(name) ? `is_${name}` : name;
}

/** ToolBench's `standardize_category`: spaces, commas and slashes become `_`, and one round of `__` → `_`. */
export function standardizeCategory(category: string): string {
  return category.replace(/[ ,/]/g, '_').replace(/__/g, '_');
}

interface Target {
  id: string;
  category: string;
  status: number;
}

/** Library tools of ToolBench origin by `<standardized tool>/<standardized api>`. */
export class StableBenchIndex {
  private readonly byKey = new Map<string, Target[]>();

  constructor(tools: Iterable<Tool>) {
    for (const tool of tools) {
      if (tool.origin.format !== 'toolbench') continue;
      const key = `${standardize(tool.origin.tool_name)}/${changeName(standardize(tool.origin.api_name))}`;
      const targets = this.byKey.get(key) ?? [];
      targets.push({
        id: tool.id,
        category: standardizeCategory(tool.origin.category),
        status: tool.response_status ?? 200,
      });
      this.byKey.set(key, targets);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The tool a cache file belongs to; the category directory breaks ties between same-named tools. */
  match(categoryDir: string, toolDir: string, apiFile: string): Target | undefined {
    const suffix = `_for_${categoryDir}`;
    const toolName = standardize(toolDir.endsWith(suffix) ? toolDir.slice(0, -suffix.length) : toolDir);
    const targets = this.byKey.get(`${toolName}/${changeName(standardize(apiFile))}`);
    if (!targets) return undefined;
    return (
      targets.find((t) => t.category === categoryDir || standardize(t.category) === standardize(categoryDir)) ??
      targets[0]
    );
  }
}

export interface StableBenchReport {
  files: number;
  matched_files: number;
  /** Cache files (relative paths) with no library tool. */
  unmatched: string[];
  entries: number;
  /** Recorded calls whose `error` was not empty: failures of the real API, not its answers. */
  skipped_errors: number;
  /** Keys that are not a dict literal of arguments, with where they were. */
  skipped_arguments: { file: string; key: string }[];
}

/**
 * The entries of a StableToolBench cache directory, read file by file (for `ResponseCache.import`, which runs them
 * in one transaction). Fills `report` as it goes. A file that is not JSON, or a recorded response that is not
 * `{"error", "response"}`, throws a CacheError naming the file: the import then stores nothing.
 */
export function* readStableBench(
  root: string,
  index: StableBenchIndex,
  report: StableBenchReport,
): Generator<ImportEntry> {
  if (!isDirectory(root))
    throw new CacheError(`${root} is not a directory (expected StableToolBench's <Category>/<tool>/<api>.json layout)`);
  for (const category of sortedDirs(root)) {
    for (const toolDir of sortedDirs(join(root, category))) {
      const dir = join(root, category, toolDir);
      for (const file of readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()) {
        const relative = join(category, toolDir, file);
        report.files++;
        const target = index.match(category, toolDir, file.slice(0, -'.json'.length));
        if (!target) {
          report.unmatched.push(relative);
          continue;
        }
        report.matched_files++;
        yield* fileEntries(join(dir, file), relative, target, report);
      }
    }
  }
}

function* fileEntries(
  path: string,
  relative: string,
  target: Target,
  report: StableBenchReport,
): Generator<ImportEntry> {
  let records: unknown;
  try {
    records = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CacheError(`${path}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isJsonObject(records)) throw new CacheError(`${path}: expected an object mapping arguments to responses`);
  for (const [key, record] of Object.entries(records)) {
    if (
      !isJsonObject(record) ||
      !('response' in record) ||
      (record.error !== undefined && typeof record.error !== 'string')
    ) {
      throw new CacheError(`${path}: the response of ${truncate(key)} is not {"error": "...", "response": ...}`);
    }
    if (record.error) {
      report.skipped_errors++;
      continue;
    }
    const args = readArguments(key);
    if (!args) {
      report.skipped_arguments.push({ file: relative, key: truncate(key) });
      continue;
    }
    report.entries++;
    yield {
      tool: target.id,
      arguments: args,
      status: target.status,
      body: readBody(record.response),
      source: STABLEBENCH_SOURCE,
    };
  }
}

/** `str(tool_input)`: a dict repr, JSON, or '' (no arguments). */
function readArguments(key: string): Record<string, unknown> | undefined {
  if (key.trim() === '') return {};
  const value = parseLoose(key);
  return isJsonObject(value) ? value : undefined;
}

/**
 * Recorded responses are mostly strings holding JSON or a Python repr; those become structured bodies, the rest stay
 * strings.
 */
export function readBody(response: unknown): unknown {
  if (typeof response !== 'string') return response;
  const trimmed = response.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return response;
  return parseLoose(trimmed) ?? response;
}

/** JSON, else a Python literal, else undefined. */
export function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return parsePythonLiteral(text);
    } catch {
      return undefined;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function sortedDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function truncate(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
