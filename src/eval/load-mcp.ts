import type { Located } from './json-text.js';
import { distinctReferences, TaskFileError, uniqueIds, type LoadedTask } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

const QUERY_KEYS = ['query', 'question', 'prompt'] as const;

/**
 * One task of an MCP-style set: the request, the tools the task offers as a `tools/list` result gives them, and
 * the names of the tools a correct solution calls. Members eval does not read pass unchecked.
 */
const TASK_SCHEMA = {
  type: 'object',
  required: ['tools'],
  properties: {
    id: { type: ['string', 'integer'] },
    ...Object.fromEntries(QUERY_KEYS.map((key) => [key, { type: 'string', minLength: 1 }])),
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          description: { type: 'string' },
          inputSchema: { type: 'object' },
        },
      },
    },
    reference_tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    answer: { type: ['string', 'array'], minLength: 1, items: { type: 'string', minLength: 1 }, minItems: 1 },
    meta: { type: 'object' },
  },
};

interface McpTask {
  id?: string | number;
  query?: string;
  question?: string;
  prompt?: string;
  tools: { name: string }[];
  reference_tools?: string[];
  answer?: string | string[];
  meta?: Record<string, unknown>;
}

let validate: ReturnType<typeof compileSchema> | undefined;

/**
 * MCP-style tasks → tasks whose episode is restricted to the offered tools and whose references are the named
 * ones, both mapped by name onto tools imported with `toolenv library import --format mcp` (a `server/tool` name
 * by its tool part when the whole matches none). An id-less task is named by its position (0-based).
 */
export function readMcpTasks(entries: Located[], file: string): LoadedTask[] {
  validate ??= compileSchema(TASK_SCHEMA);
  const claim = uniqueIds(file, 'id');
  return entries.map(({ value, line }, index) => {
    if (!validate!(value)) throw new TaskFileError(`${file}:${line}: MCP task ${describeErrors(validate!.errors)}`);
    const entry = value as McpTask;
    const query = QUERY_KEYS.map((key) => entry[key]).find((text) => text !== undefined);
    if (query === undefined)
      throw new TaskFileError(`${file}:${line}: MCP task is missing "query" (or "question", "prompt")`);
    const id = String(entry.id ?? index);
    claim(id, line);
    const offered = new Set(entry.tools.map((t) => t.name));
    const outside = entry.reference_tools?.find((name) => !offered.has(name));
    if (outside !== undefined)
      throw new TaskFileError(
        `${file}:${line}: reference tool ${JSON.stringify(outside)} is not among the task's tools`,
      );
    const task: LoadedTask = {
      id,
      query,
      references: distinctReferences((entry.reference_tools ?? []).map((name) => ({ name }))),
      line,
    };
    if (offered.size > 0) task.tools = [...offered].map((name) => ({ name }));
    if (entry.answer !== undefined) task.answer = entry.answer;
    if (entry.meta !== undefined) task.meta = entry.meta;
    return task;
  });
}
