/** What MCP tools and OpenAI functions have in common: a flat list of named functions in one file, no category. */
import { basename, extname } from 'node:path';
import { inferCategory } from '../categories.js';
import { isValidId, makeId } from '../ids.js';
import type { ApiRecord, JsonSchema, JsonSchemaObject, LibraryBatch, Tool } from '../tool.js';
import { humanize, invalid, pointer } from './source.js';

export interface NamedFunction {
  name: string;
  description: string | undefined;
  parameters: JsonSchemaObject;
  response_schema: JsonSchema | undefined;
  /** JSON Pointer of the function in its file, for errors. */
  at: string;
}

/**
 * The file's functions as tool records, plus one API record for the file. The id is the name when that is a
 * valid id, else a slug of it (a hash appended when it is too long), so it is the same on every import.
 */
export function namedFunctionsBatch(format: 'mcp' | 'openai', file: string, functions: NamedFunction[]): LibraryBatch {
  const seen = new Map<string, string>();
  for (const fn of functions) {
    const first = seen.get(fn.name);
    if (first !== undefined)
      throw invalid(file, pointer(fn.at, 'name'), `duplicate tool name ${JSON.stringify(fn.name)} (first at ${first})`);
    seen.set(fn.name, fn.at);
  }
  const tools = functions.map((fn): Tool => {
    const description = fn.description ?? humanize(fn.name);
    const tool: Tool = {
      id: isValidId(fn.name) ? fn.name : makeId([fn.name], fn.name),
      name: fn.name,
      description,
      category: inferCategory(`${fn.name} ${description}`),
      parameters: fn.parameters,
      examples: [],
      origin: { format, name: fn.name },
    };
    if (fn.response_schema !== undefined) tool.response_schema = fn.response_schema;
    return tool;
  });
  if (tools.length === 0) return { apis: [], tools };
  const stem = basename(file, extname(file));
  const api: ApiRecord = {
    api_id: makeId([format, stem], `${format}/${stem}`),
    title: stem,
    provider: stem,
    category: mostCommon(tools.map((t) => t.category)),
    format,
  };
  return { apis: [api], tools };
}

function mostCommon(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
}
