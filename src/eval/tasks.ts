/** What the task loaders hand to reference mapping and the runner. */

export const TASK_FORMATS = ['own', 'toolbench'] as const;
export type TaskFormat = (typeof TASK_FORMATS)[number];

/** A ToolBench reference: `[tool_name, api_name]` of `relevant APIs`, with the category its `api_list` entry names. */
export interface NamedReference {
  category?: string;
  tool_name: string;
  api_name: string;
}

/** A reference tool as a task file names it: a library id (own format) or ToolBench names. */
export type ToolReference = { id: string } | NamedReference;

export interface LoadedTask {
  id: string;
  query: string;
  answer?: string | string[];
  references: ToolReference[];
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

/** How a reference reads in reports: the id, or `tool_name / api_name`. */
export function referenceLabel(reference: ToolReference): string {
  return 'id' in reference ? reference.id : `${reference.tool_name} / ${reference.api_name}`;
}
