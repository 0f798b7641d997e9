import { writeFileSync } from 'node:fs';
import { loadTasks } from '../eval/load.js';
import { TaskFileError } from '../eval/tasks.js';
import type { StateAssertion } from '../wire/schema-types.js';

/** A training task as `RUN/tasks.jsonl` holds it: the episode's task, its tool set and its seed. */
export interface TrainTask {
  id: string;
  query: string;
  reference_tools?: string[];
  answer?: string | string[];
  /** Write tasks: the assertions the episode's world is scored by (r_state). */
  expect?: StateAssertion[];
  tools?: string[];
  seed?: number;
}

/**
 * Reads a task file in ToolEnv's own format (what `toolenv tasks synth` writes and `eval` reads): training needs
 * library ids, which other formats only reach through eval's name mapping.
 */
export function readTrainTasks(file: string): TrainTask[] {
  const loaded = loadTasks(file);
  if (loaded.format !== 'own') {
    throw new TaskFileError(
      `${file}: a ${loaded.format} task file; training reads ToolEnv's own JSON Lines ({id, query, reference_tools?, ` +
        'answer?, expect?, tools?, seed?}, as `toolenv tasks synth` writes)',
    );
  }
  const ids = (refs: readonly unknown[] | undefined) => refs?.map((r) => (r as { id: string }).id);
  return loaded.tasks.map((t): TrainTask => {
    const task: TrainTask = { id: t.id, query: t.query };
    const references = ids(t.references);
    if (references && references.length > 0) task.reference_tools = references;
    if (t.answer !== undefined) task.answer = t.answer;
    if (t.expect !== undefined) task.expect = t.expect;
    const tools = ids(t.tools);
    if (tools) task.tools = tools;
    if (t.seed !== undefined) task.seed = t.seed;
    return task;
  });
}

export function writeTrainTasks(file: string, tasks: readonly TrainTask[]): void {
  writeFileSync(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
}
