import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Located } from './json-text.js';
import { readEntries } from './load-entries.js';
import { distinctReferences, TaskFileError, uniqueIds, type FunctionReference, type LoadedTask } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

/**
 * The ground truth of one entry: per expected call `{func_name: {arg: [allowed values]}}` (AST categories), a call
 * string `func_name(arg=…)` (exec categories), or a turn's list of call strings (multi-turn).
 */
const GROUND_TRUTH = {
  type: 'array',
  items: {
    type: ['object', 'string', 'array'],
    minProperties: 1,
    minLength: 1,
    items: { type: 'string', minLength: 1 },
  },
};

/**
 * A chat message; `required` and `properties` hold for objects only, `items` for arrays only: a turn is a list of them.
 */
const MESSAGE = {
  type: 'object',
  required: ['role'],
  properties: { role: { type: 'string' }, content: { type: ['string', 'null'] } },
};
const FUNCTION = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } };

/**
 * One BFCL entry (`BFCL_v3_simple.json` and its kin: JSON Lines despite the name). `question` is a list of turns,
 * each a list of messages (v3), a flat list of messages (v2) or a string (older files); `function` the offered
 * OpenAI-style specs (or one spec); `ground_truth`, when the entry carries it, what possible_answer/ would hold.
 * Members eval does not read (parameters, initial_config, involved_classes) pass unchecked.
 */
const ENTRY_SCHEMA = {
  type: 'object',
  required: ['question'],
  properties: {
    id: { type: ['string', 'integer'] },
    question: {
      type: ['string', 'array'],
      minLength: 1,
      minItems: 1,
      items: { ...MESSAGE, type: ['object', 'array'], items: MESSAGE },
    },
    function: { ...FUNCTION, type: ['array', 'object'], items: FUNCTION },
    ground_truth: GROUND_TRUTH,
  },
};

const ANSWER_SCHEMA = {
  type: 'object',
  required: ['id', 'ground_truth'],
  properties: { id: { type: ['string', 'integer'] }, ground_truth: GROUND_TRUTH },
};

type Message = { role: string; content?: string | null };

interface BfclEntry {
  id?: string | number;
  question: string | (Message | Message[])[];
  function?: { name: string } | { name: string }[];
  ground_truth?: GroundTruth;
}

type GroundTruth = (Record<string, unknown> | string | string[])[];

/** The function name a call string starts with: `math.factorial(number=5)` → `math.factorial`. */
const CALL = /^\s*([\p{L}_][\p{L}\p{N}_.-]*)\s*\(/u;

let validateEntry: ReturnType<typeof compileSchema> | undefined;
let validateAnswer: ReturnType<typeof compileSchema> | undefined;

/**
 * BFCL entries → tasks: the query is the first user message, the episode is restricted to the offered functions,
 * the references are the ground-truth functions: from the entry's own `ground_truth`, else from the file of the
 * same name in `possible_answer/` next to it (BFCL's layout), joined by id. An id-less entry is named by its
 * position (0-based), as BFCL numbers them. BFCL functions are in a library only once imported
 * (`toolenv library import --format openai`); until then the tasks are unmappable.
 */
export function readBfclTasks(entries: Located[], file: string): LoadedTask[] {
  validateEntry ??= compileSchema(ENTRY_SCHEMA);
  const answers = possibleAnswers(file);
  const claim = uniqueIds(file, 'id');
  return entries.map(({ value, line }, index) => {
    if (typeof value === 'object' && value !== null && 'ground_truth' in value && !('question' in value)) {
      throw new TaskFileError(
        `${file}:${line}: a BFCL possible_answer entry (id, ground_truth): pass the question file; the ground truth ` +
          'is read from possible_answer/ next to it',
      );
    }
    if (!validateEntry!(value))
      throw new TaskFileError(`${file}:${line}: BFCL entry ${describeErrors(validateEntry!.errors)}`);
    const entry = value as BfclEntry;
    const id = String(entry.id ?? index);
    claim(id, line);
    const query = firstUserMessage(entry.question);
    if (query === undefined)
      throw new TaskFileError(`${file}:${line}: BFCL entry has no user message with content in "question"`);
    const truth =
      entry.ground_truth === undefined ? answers?.get(id) : functionNames(entry.ground_truth, `${file}:${line}`);
    const task: LoadedTask = { id, query, references: truth ?? [], line };
    const offered =
      entry.function === undefined ? [] : Array.isArray(entry.function) ? entry.function : [entry.function];
    if (offered.length > 0) task.tools = distinctReferences(offered.map(({ name }) => ({ name })));
    return task;
  });
}

function firstUserMessage(question: BfclEntry['question']): string | undefined {
  if (typeof question === 'string') return question.trim() || undefined;
  const messages = question.flatMap((item) => (Array.isArray(item) ? item : [item]));
  return messages
    .find((m) => m.role === 'user' && typeof m.content === 'string' && m.content.trim() !== '')
    ?.content?.trim();
}

/** `possible_answer/NAME` next to the question file: id → ground-truth functions; undefined when there is none. */
function possibleAnswers(file: string): Map<string, FunctionReference[]> | undefined {
  const path = join(dirname(file), 'possible_answer', basename(file));
  if (!existsSync(path)) return undefined;
  validateAnswer ??= compileSchema(ANSWER_SCHEMA);
  const claim = uniqueIds(path, 'id');
  const out = new Map<string, FunctionReference[]>();
  for (const { value, line } of readEntries(path, 'BFCL possible_answer file')) {
    if (!validateAnswer(value))
      throw new TaskFileError(`${path}:${line}: BFCL possible answer ${describeErrors(validateAnswer.errors)}`);
    const answer = value as { id: string | number; ground_truth: GroundTruth };
    const id = String(answer.id);
    claim(id, line);
    out.set(id, functionNames(answer.ground_truth, `${path}:${line}`));
  }
  return out;
}

/** The functions a ground truth calls, each once, in call order. */
function functionNames(truth: GroundTruth, where: string): FunctionReference[] {
  const callName = (call: string) => {
    const name = CALL.exec(call)?.[1];
    if (name === undefined)
      throw new TaskFileError(`${where}: ground truth ${JSON.stringify(call.slice(0, 60))} is not a call func(args)`);
    return name;
  };
  const names = truth.flatMap((item) =>
    typeof item === 'string' ? [callName(item)] : Array.isArray(item) ? item.map(callName) : Object.keys(item),
  );
  return distinctReferences(names.map((name) => ({ name })));
}
