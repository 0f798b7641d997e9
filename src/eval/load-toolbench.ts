import type { Located } from './json-text.js';
import { TaskFileError, uniqueIds, type LoadedTask, type NamedReference } from './tasks.js';
import { compileSchema, describeErrors } from './validate.js';

const names = { type: 'array', items: { type: 'array', minItems: 2, items: { type: 'string', minLength: 1 } } };

/**
 * One ToolBench / StableToolBench query (`G1_instruction.json`, `solvable_queries/…`). Members eval does not read
 * (api descriptions, parameters, templates) pass unchecked. `answer` is ToolEnv's addition for rule-based success.
 */
const QUERY_SCHEMA = {
  type: 'object',
  required: ['query_id', 'query'],
  properties: {
    query_id: { type: ['string', 'integer'] },
    query: { type: 'string', minLength: 1 },
    api_list: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tool_name', 'api_name'],
        properties: {
          category_name: { type: 'string' },
          tool_name: { type: 'string', minLength: 1 },
          api_name: { type: 'string', minLength: 1 },
        },
      },
    },
    'relevant APIs': names,
    relevant_apis: names,
    answer: { type: ['string', 'array'], minLength: 1, items: { type: 'string', minLength: 1 }, minItems: 1 },
  },
};

interface ToolbenchQuery {
  query_id: string | number;
  query: string;
  api_list?: { category_name?: string; tool_name: string; api_name: string }[];
  'relevant APIs'?: string[][];
  relevant_apis?: string[][];
  answer?: string | string[];
}

let validate: ReturnType<typeof compileSchema> | undefined;

/**
 * ToolBench queries → tasks whose references are `relevant APIs` pairs, each with the category its api_list entry
 * names, and whose episode is restricted to the api_list: the APIs ToolBench offered the query.
 */
export function readToolbenchTasks(entries: Located[], file: string): LoadedTask[] {
  validate ??= compileSchema(QUERY_SCHEMA);
  const claim = uniqueIds(file, 'query_id');
  return entries.map(({ value, line }) => {
    if (!validate!(value))
      throw new TaskFileError(`${file}:${line}: ToolBench query ${describeErrors(validate!.errors)}`);
    const query = value as ToolbenchQuery;
    const id = String(query.query_id);
    claim(id, line);
    const task: LoadedTask = { id, query: query.query, references: references(query), line };
    if (query.api_list !== undefined && query.api_list.length > 0) task.tools = offered(query.api_list);
    if (query.answer !== undefined) task.answer = query.answer;
    return task;
  });
}

/** The api_list entries as references, each pair once. */
function offered(apis: NonNullable<ToolbenchQuery['api_list']>): NamedReference[] {
  const seen = new Set<string>();
  const out: NamedReference[] = [];
  for (const { category_name, tool_name, api_name } of apis) {
    const key = JSON.stringify([tool_name, api_name]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(category_name ? { category: category_name, tool_name, api_name } : { tool_name, api_name });
  }
  return out;
}

function references(query: ToolbenchQuery): NamedReference[] {
  const pairs = query['relevant APIs'] ?? query.relevant_apis ?? [];
  const seen = new Set<string>();
  const out: NamedReference[] = [];
  for (const [tool_name, api_name] of pairs as [string, string][]) {
    const key = JSON.stringify([tool_name, api_name]);
    if (seen.has(key)) continue;
    seen.add(key);
    const listed = query.api_list?.find((api) => api.tool_name === tool_name && api.api_name === api_name);
    out.push(listed?.category_name ? { category: listed.category_name, tool_name, api_name } : { tool_name, api_name });
  }
  return out;
}
