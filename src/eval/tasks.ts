import type { StateAssertion } from '../wire/schema-types.js';

/** What the task loaders hand to reference mapping and the runner. */

export const TASK_FORMATS = ['own', 'toolbench', 'bfcl', 'apibank', 'mcp'] as const;
export type TaskFormat = (typeof TASK_FORMATS)[number];

/** A ToolBench reference: `[tool_name, api_name]` of `relevant APIs`, with the category its `api_list` entry names. */
export interface NamedReference {
  category?: string;
  tool_name: string;
  api_name: string;
}

/**
 * A function or tool by its bare name (a BFCL function, an API-Bank API, an MCP tool): the name an OpenAI or MCP
 * import gives its tool's origin, or a library id.
 */
export interface FunctionReference {
  name: string;
}

/** A reference tool as a task file names it: a library id (own format), ToolBench names, or a function name. */
export type ToolReference = { id: string } | NamedReference | FunctionReference;

export interface LoadedTask {
  id: string;
  query: string;
  answer?: string | string[];
  /** Assertions over the episode's final world state (own format). */
  expect?: StateAssertion[];
  references: ToolReference[];
  /**
   * The tools the episode is restricted to (ToolBench's api_list, BFCL's functions, an MCP tools/list), as the file
   * names them.
   */
  tools?: ToolReference[];
  /** The episode seed the task carries. */
  seed?: number;
  meta?: Record<string, unknown>;
  /** 1-based line of the file the task starts on. */
  line: number;
}

export interface TaskFile {
  file: string;
  format: TaskFormat;
  tasks: LoadedTask[];
}

/** A mistake in what eval was asked to do (task file, server, policy, judge): the CLI reports it as a usage error. */
export class EvalInputError extends Error {}

/** A task file that cannot be read: the message names the file, the line and what was wrong. */
export class TaskFileError extends EvalInputError {}

/** How a reference reads in reports: the id, the function name, or `tool_name / api_name`. */
export function referenceLabel(reference: ToolReference): string {
  if ('id' in reference) return reference.id;
  if ('name' in reference) return reference.name;
  return `${reference.tool_name} / ${reference.api_name}`;
}

/**
 * A check that every task id of a file is new: ids name a task's runs and trajectory files. `what` is how the
 * format calls its id (`task id`, `query_id`).
 */
export function uniqueIds(file: string, what: string): (id: string, line: number) => void {
  const seen = new Map<string, number>();
  return (id, line) => {
    const first = seen.get(id);
    if (first !== undefined)
      throw new TaskFileError(`${file}:${line}: ${what} ${JSON.stringify(id)} is already used on line ${first}`);
    seen.set(id, line);
  };
}

/** Distinct references in first-seen order: a tool named twice is one reference tool. */
export function distinctReferences<T extends ToolReference>(references: readonly T[]): T[] {
  const seen = new Set<string>();
  return references.filter((reference) => {
    const key = JSON.stringify(reference);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
