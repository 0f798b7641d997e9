import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../library/ajv.js';
import { describeSchemaErrors } from '../wire/schema-errors.js';
import { schemaDefinition, schemaFile } from '../wire/schemas.js';
import type { StateAssertion } from '../wire/schema-types.js';
import type { Located } from './json-text.js';
import { TaskFileError, uniqueIds, type LoadedTask } from './tasks.js';

/** schemas/task.schema.json, next to dist/ (compiled code lives in dist/src/eval/). */
const SCHEMA_URL = new URL('../../../schemas/task.schema.json', import.meta.url);

interface OwnTask {
  id: string;
  query: string;
  reference_tools?: string[];
  tools?: string[];
  answer?: string | string[];
  expect?: StateAssertion[];
  seed?: number;
  meta?: Record<string, unknown>;
}

let validate: ValidateFunction | undefined;

/** The task schema, its `expect` assertions read from trajectory.schema.json as the episode routes read them. */
function taskValidator(): ValidateFunction {
  const ajv = createAjv({ verbose: true, discriminator: true });
  ajv.addSchema(schemaFile('trajectory'));
  return ajv.compile(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
}

/**
 * The project's own tasks (one object per line, schemas/task.schema.json), each checked against the schema: a wrong
 * member is named by its JSON pointer (`/expect/0/count must be an integer from 0 to 100000, got -1`).
 */
export function readOwnTasks(entries: Located[], file: string): LoadedTask[] {
  validate ??= taskValidator();
  const claim = uniqueIds(file, 'task id');
  return entries.map(({ value, line }) => {
    if (!validate!(value)) {
      const wrong = describeSchemaErrors(validate!.errors ?? [], schemaDefinition)
        .map((e) => (e.path === '' ? e.message : `${e.path} ${e.message}`))
        .join('; ');
      throw new TaskFileError(`${file}:${line}: task ${wrong} (see schemas/task.schema.json)`);
    }
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
    if (task.expect !== undefined) loaded.expect = task.expect;
    if (task.meta !== undefined) loaded.meta = task.meta;
    return loaded;
  });
}
