import { basename, extname } from 'node:path';
import type { Located } from './json-text.js';
import { distinctReferences, TaskFileError, type LoadedTask } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

/** API-Bank's tool-retrieval API: a call to it is a search for a tool, not a tool the task needs. */
const TOOL_SEARCHER = 'ToolSearcher';

/**
 * A dialog turn (levels 1–3 `.jsonl`): `{role: "User" | "AI", text}`, or an API call `{role: "API", api_name,
 * param_dict, result}`.
 */
const TEXT_TURN = {
  type: 'object',
  required: ['role'],
  properties: { role: { type: 'string', minLength: 1 }, text: { type: 'string' } },
};
const API_TURN = {
  type: 'object',
  required: ['role', 'api_name'],
  properties: { role: { type: 'string' }, api_name: { type: 'string', minLength: 1 }, param_dict: { type: 'object' } },
};

/** A level-3 task (`level-3.json`): the requirement and the gold calls, each `{api_name, input, output}`. */
const REQUIREMENT = {
  type: 'object',
  required: ['requirement', 'apis'],
  properties: {
    requirement: { type: 'string', minLength: 1, pattern: '\\S' },
    apis: {
      type: 'array',
      items: {
        type: 'object',
        required: ['api_name'],
        properties: { api_name: { type: 'string', minLength: 1 }, input: { type: 'object' } },
      },
    },
  },
};

/**
 * A step sample (`level-1-api.json`, `level-3-batch-inf.json`…): the dialog so far as text in `input`, the next
 * step in `expected_output` (or `output`), `API-Request: [ApiName(key='value', …)]` lines for the calls; the
 * samples of one dialog share its `file` or `sample_id`.
 */
const STEP = {
  type: 'object',
  required: ['input'],
  properties: {
    input: { type: 'string', minLength: 1 },
    output: { type: 'string' },
    expected_output: { type: 'string' },
    file: { type: 'string', minLength: 1 },
    sample_id: { type: ['integer', 'string'] },
  },
};

interface Turn {
  role: string;
  text?: string;
  api_name?: string;
  param_dict?: Record<string, unknown>;
}

interface Step {
  input: string;
  output?: string;
  expected_output?: string;
  file?: string;
  sample_id?: number | string;
}

/** One call of a gold sequence; `keywords` is what a ToolSearcher call searched for. */
interface Call {
  name: string;
  keywords?: string;
}

const API_REQUEST = /API-Request:\s*\[\s*([A-Za-z_]\w*)\s*\(([^)\]]*)/g;
const KEYWORDS = /\bkeywords\s*=\s*(['"])(.*?)\1/;

const validators = new Map<object, ReturnType<typeof compileSchema>>();
function check(schema: object, value: unknown, where: string, what: string): void {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compileSchema(schema)));
  if (!validate(value)) throw new TaskFileError(`${where}: ${what} ${describeErrors(validate.errors)}`);
}

/**
 * API-Bank (levels 1–3) → tasks: the query is the first user utterance, the references the gold call sequence's
 * APIs (ToolSearcher calls are searches, kept in `meta.searches`). Reads, told apart by the first entry: a dialog
 * file whose lines are its turns (one task, named by the file), lines or elements that are each a dialog (a list
 * of turns), level-3 requirements `{requirement, apis}`, or step samples grouped into dialogs by `file` or
 * `sample_id`. Ids are the file name, the dialog's `file` (extension dropped) or `sample_id`, else the position
 * (0-based). API-Bank's APIs are not in a library until imported as OpenAI or MCP functions of the same names.
 */
export function readApibankTasks(entries: Located[], file: string): LoadedTask[] {
  const first = entries[0]!.value;
  if (Array.isArray(first))
    return entries.map(({ value, line }, index) =>
      dialogTask(String(index), readDialog(value, `${file}:${line}`), `${file}:${line}`, line),
    );
  if (typeof first === 'object' && first !== null && 'role' in first) {
    const turns = entries.map(({ value, line }) => readTurn(value, `${file}:${line}`, 'API-Bank turn'));
    return [dialogTask(basename(file, extname(file)), turns, `${file}:${entries[0]!.line}`, entries[0]!.line)];
  }
  if (typeof first === 'object' && first !== null && ('requirement' in first || 'apis' in first))
    return entries.map((entry, index) => requirementTask(entry, index, file));
  return stepTasks(entries, file);
}

function readDialog(value: unknown, where: string): Turn[] {
  if (!Array.isArray(value))
    throw new TaskFileError(
      `${where}: API-Bank dialog must be an array of turns, got ${value === null ? 'null' : typeof value}`,
    );
  return value.map((turn, i) => readTurn(turn, where, `API-Bank dialog turn ${i}`));
}

function readTurn(value: unknown, where: string, what: string): Turn {
  const api =
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Turn).role === 'string' &&
    (value as Turn).role.toLowerCase() === 'api';
  check(api ? API_TURN : TEXT_TURN, value, where, what);
  return value as Turn;
}

function dialogTask(id: string, turns: Turn[], where: string, line: number): LoadedTask {
  const query = turns.find((t) => t.role.toLowerCase() === 'user' && t.text?.trim())?.text?.trim();
  if (query === undefined) throw new TaskFileError(`${where}: API-Bank dialog has no user utterance`);
  const calls = turns.flatMap((turn): Call[] => {
    if (turn.api_name === undefined) return callsInText(turn.text ?? '');
    const keywords = turn.param_dict?.keywords;
    return [typeof keywords === 'string' ? { name: turn.api_name, keywords } : { name: turn.api_name }];
  });
  return task(id, query, calls, line);
}

function requirementTask({ value, line }: Located, index: number, file: string): LoadedTask {
  check(REQUIREMENT, value, `${file}:${line}`, 'API-Bank level-3 task');
  const { requirement, apis } = value as {
    requirement: string;
    apis: { api_name: string; input?: Record<string, unknown> }[];
  };
  const calls = apis.map(
    ({ api_name, input }): Call =>
      typeof input?.keywords === 'string' ? { name: api_name, keywords: input.keywords } : { name: api_name },
  );
  return task(String(index), requirement.trim(), calls, line);
}

/** Step samples → one task per dialog: its longest input holds every earlier call, its expected step the last. */
function stepTasks(entries: Located[], file: string): LoadedTask[] {
  const dialogs = new Map<string, { line: number; steps: Step[] }>();
  entries.forEach(({ value, line }, index) => {
    check(STEP, value, `${file}:${line}`, 'API-Bank step sample');
    const step = value as Step;
    const key = step.file === undefined ? String(step.sample_id ?? index) : basename(step.file, extname(step.file));
    const dialog = dialogs.get(key);
    if (dialog) dialog.steps.push(step);
    else dialogs.set(key, { line, steps: [step] });
  });
  return [...dialogs].map(([id, { line, steps }]) => {
    const query = /^User:[ \t]*(.*\S)/m.exec(steps[0]!.input)?.[1];
    if (query === undefined)
      throw new TaskFileError(`${file}:${line}: API-Bank step sample has no "User:" utterance in its input`);
    const last = steps.reduce((a, b) => (b.input.length > a.input.length ? b : a));
    return task(
      id,
      query,
      [...callsInText(last.input), ...callsInText(last.expected_output ?? last.output ?? '')],
      line,
    );
  });
}

function callsInText(text: string): Call[] {
  return [...text.matchAll(API_REQUEST)].map(([, name, args]) => {
    const keywords = KEYWORDS.exec(args!)?.[2];
    return keywords === undefined ? { name: name! } : { name: name!, keywords };
  });
}

function task(id: string, query: string, calls: Call[], line: number): LoadedTask {
  const loaded: LoadedTask = {
    id,
    query,
    references: distinctReferences(calls.filter((c) => c.name !== TOOL_SEARCHER).map((c) => ({ name: c.name }))),
    line,
  };
  const searches = calls.flatMap((c) => (c.name === TOOL_SEARCHER && c.keywords !== undefined ? [c.keywords] : []));
  if (searches.length > 0) loaded.meta = { searches };
  return loaded;
}
