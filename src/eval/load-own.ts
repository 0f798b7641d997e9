import { readFileSync } from 'node:fs';
import type { Located } from './json-text.js';
import { TaskFileError, type LoadedTask } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

/** schemas/task.schema.json, next to dist/ (compiled code lives in dist/src/eval/). */
const SCHEMA_URL = new URL('../../../schemas/task.schema.json', import.meta.url);

interface OwnTask {
  id: string;
  query: string;
  reference_tools?: string[];
  answer?: string | string[];
  meta?: Record<string, unknown>;
}

let validate: ReturnType<typeof compileSchema> | undefined;

/** The project's own tasks (one object per line, schemas/task.schema.json), each checked against the schema. */
export function readOwnTasks(entries: Located[], file: string): LoadedTask[] {
  validate ??= compileSchema(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
  const seen = new Map<string, number>();
  return entries.map(({ value, line }) => {
    if (!validate!(value)) throw new TaskFileError(`${file}:${line}: task ${describeErrors(validate!.errors)} (see schemas/task.schema.json)`);
    const task = value as OwnTask;
    const first = seen.get(task.id);
    if (first !== undefined) throw new TaskFileError(`${file}:${line}: task id ${JSON.stringify(task.id)} is already used on line ${first}`);
    seen.set(task.id, line);
    const loaded: LoadedTask = { id: task.id, query: task.query, references: (task.reference_tools ?? []).map((id) => ({ id })), line };
    if (task.answer !== undefined) loaded.answer = task.answer;
    if (task.meta !== undefined) loaded.meta = task.meta;
    return loaded;
  });
}
