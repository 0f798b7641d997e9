/**
 * OpenAI function specs: an array of `{name, description, parameters}` (Chat Completions `functions`), of
 * `{type: "function", function: {…}}` (Chat Completions `tools`) or of flat `{type: "function", name, …}`
 * (Responses API), bare, wrapped in `{tools: […]}` or `{functions: […]}`, or a single spec. Python type names
 * (`dict`, `float`, as BFCL writes them) are read as their JSON Schema types.
 */
import type { LibraryBatch } from '../tool.js';
import { namedFunctionsBatch, type NamedFunction } from './named.js';
import { jsonSchemaTypes } from './python-types.js';
import { parametersSchema } from './schema.js';
import { invalid, isObject, kind, pointer, readDocument, text, type JsonObject } from './source.js';

export const OPENAI_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

export function importOpenaiFile(file: string): LibraryBatch {
  return convertOpenai(readDocument(file), file);
}

export function convertOpenai(doc: unknown, file: string): LibraryBatch {
  const functions = specList(doc, file).map(([item, at]): NamedFunction => {
    const [spec, where] = functionSpec(item, file, at);
    if (typeof spec.name !== 'string' || spec.name.trim() === '')
      throw invalid(file, pointer(where, 'name'), 'missing: every function needs a name');
    return {
      name: spec.name,
      description: text(spec.description),
      parameters: parametersSchema(jsonSchemaTypes(spec.parameters), file, pointer(where, 'parameters')),
      response_schema: undefined,
      at: where,
    };
  });
  return namedFunctionsBatch('openai', file, functions);
}

/** Each spec in the file with its JSON Pointer. */
function specList(doc: unknown, file: string): [unknown, string][] {
  const at = (list: unknown[], base: string) => list.map((item, i): [unknown, string] => [item, pointer(base, i)]);
  if (Array.isArray(doc)) return at(doc, '');
  if (isObject(doc)) {
    for (const key of ['tools', 'functions']) {
      const value = doc[key];
      if (Array.isArray(value)) return at(value, `/${key}`);
      if (value !== undefined) throw invalid(file, `/${key}`, `must be an array of function specs, got ${kind(value)}`);
    }
    if ('name' in doc || 'function' in doc) return [[doc, '']];
  }
  throw invalid(
    file,
    '',
    `expected an array of OpenAI function specs (or {"tools": [...]} / {"functions": [...]}), got ${kind(doc)}`,
  );
}

/** The spec inside one list item, and where it is. */
function functionSpec(item: unknown, file: string, at: string): [JsonObject, string] {
  if (!isObject(item))
    throw invalid(file, at, `expected a function spec {name, description, parameters}, got ${kind(item)}`);
  if (item.type !== undefined && item.type !== 'function') {
    throw invalid(file, pointer(at, 'type'), `only function tools can be imported, got ${JSON.stringify(item.type)}`);
  }
  if (item.function !== undefined) {
    if (!isObject(item.function))
      throw invalid(
        file,
        pointer(at, 'function'),
        `must be a function spec {name, description, parameters}, got ${kind(item.function)}`,
      );
    return [item.function, pointer(at, 'function')];
  }
  return [item, at];
}
