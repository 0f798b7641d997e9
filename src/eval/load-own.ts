import { readFileSync } from 'node:fs';
import type { Located } from './json-text.js';
import { TaskFileError, uniqueIds, type LoadedTask } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

/** schemas/task.schema.json, next to dist/ (compiled code lives in dist/src/eval/). */
const SCHEMA_URL = new URL('../../../schemas/task.schema.json', import.meta.url);

interface OwnTask {
  id: string;
  query: string;
  reference_tools?: string[];
  tools?: string[];
  answer?: string | string[];
  seed?: number;
  meta?: Record<string, unknown>;
}

let validate: ReturnType<typeof compileSchema> | undefined;

/** The project's own tasks (one object per line, schemas/task.schema.json), each checked against the schema. */
export function readOwnTasks(entries: Located[], file: string): LoadedTask[] {
  validate ??= compileSchema(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
  const claim = uniqueIds(file, 'task id');
  return entries.map(({ value, line }) => {
    if (!validate!(value))
      throw new TaskFileError(
        `${file}:${line}: task ${describeErrors(validate!.errors)} (see schemas/task.schema.json)`,
      );
    const task = value as OwnTask;
    claim(task.id, line);
    // A reference outside the episode's tools could never be called: the run would be scored against a tool it is
    // refused.
    const outside = task.tools && task.reference_tools?.find((id) => !task.tools!.includes(id));
    if (outside)
      throw new TaskFileError(
        `${file}:${line}: reference tool ${JSON.stringify(outside)} is not among the task's tools`,
      );
    const loaded: LoadedTask = {
      id: task.id,
      query: task.query,
      references: (task.reference_tools ?? []).map((id) => ({ id })),
      line,
    };
    if (task.tools !== undefined) loaded.tools = task.tools.map((id) => ({ id }));
    if (task.seed !== undefined) loaded.seed = task.seed;
    if (task.answer !== undefined) loaded.answer = task.answer;
    if (task.meta !== undefined) loaded.meta = task.meta;
    return loaded;
  });
}
