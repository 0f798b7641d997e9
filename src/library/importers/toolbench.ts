/**
 * ToolBench / StableToolBench tool files: `<root>/<Category>/<tool>.json`, one RapidAPI tool per file, each API
 * of its `api_list` becoming one tool record. The category is the folder the file lies in: kept as is in the
 * origin, snake_cased ("Business_Software" → "business_software") like every other category of the library.
 */
import { basename, dirname, resolve } from 'node:path';
import { inferCategory, normalizeCategory } from '../categories.js';
import { makeId } from '../ids.js';
import type { ApiRecord, JsonSchema, JsonSchemaObject, LibraryBatch, Tool } from '../tool.js';
import { responseSchema } from './schema.js';
import { invalid, isObject, kind, pointer, readDocument, text, type JsonObject } from './source.js';

export const TOOLBENCH_EXTENSIONS = ['.json'] as const;

export function importToolbenchFile(file: string): LibraryBatch {
  return convertToolbench(readDocument(file), file, basename(dirname(resolve(file))));
}

/**
 * One ToolBench tool document from the category folder `folder` → its API record and one tool per entry of `api_list`.
 */
export function convertToolbench(doc: unknown, file: string, folder: string): LibraryBatch {
  if (!isObject(doc))
    throw invalid(
      file,
      '',
      `expected a ToolBench tool object {tool_name, tool_description, api_list}, got ${kind(doc)}`,
    );
  const toolName = text(doc.tool_name) ?? text(doc.name) ?? text(doc.title);
  if (!toolName) throw invalid(file, '/tool_name', 'missing: a ToolBench tool needs a tool_name');
  const toolDescription = text(doc.tool_description) ?? text(doc.description);
  if (!Array.isArray(doc.api_list)) {
    throw invalid(
      file,
      '/api_list',
      doc.api_list === undefined
        ? 'missing: a ToolBench tool needs an api_list'
        : `must be an array, got ${kind(doc.api_list)}`,
    );
  }
  const category = normalizeCategory(folder) ?? inferCategory(`${toolName} ${toolDescription ?? ''}`);
  const tools = doc.api_list.map((api, i) =>
    convertApi(api, { file, at: pointer('/api_list', i), folder, category, toolName, toolDescription }),
  );
  if (tools.length === 0) return { apis: [], tools };
  const api: ApiRecord = {
    api_id: makeId(['toolbench', folder, toolName], `${folder}/${toolName}`),
    title: toolName,
    provider: text(doc.host) ?? hostOf(doc.api_list) ?? toolName,
    category,
    format: 'toolbench',
  };
  return { apis: [api], tools };
}

interface ApiContext {
  file: string;
  at: string;
  folder: string;
  category: string;
  toolName: string;
  toolDescription: string | undefined;
}

function convertApi(api: unknown, ctx: ApiContext): Tool {
  const { file, at, folder, category, toolName } = ctx;
  if (!isObject(api))
    throw invalid(
      file,
      at,
      `expected an API object {name, description, method, required_parameters, optional_parameters}, got ${kind(api)}`,
    );
  const apiName = text(api.name) ?? text(api.api_name);
  if (!apiName) throw invalid(file, pointer(at, 'name'), 'missing: every API in api_list needs a name');
  // A Map, not an object: a parameter may be called "constructor" or "__proto__".
  const properties = new Map<string, JsonSchema>();
  const required: string[] = [];
  for (const list of ['required_parameters', 'optional_parameters'] as const) {
    const params = api[list];
    if (params === undefined || params === null) continue;
    if (!Array.isArray(params))
      throw invalid(file, pointer(at, list), `must be an array of parameters, got ${kind(params)}`);
    params.forEach((param, i) => {
      const where = pointer(at, list, i);
      if (!isObject(param))
        throw invalid(file, where, `expected a parameter {name, type, description}, got ${kind(param)}`);
      const name = typeof param.name === 'string' && param.name !== '' ? param.name : undefined;
      if (!name) throw invalid(file, pointer(where, 'name'), 'missing: every parameter needs a name');
      // A name listed twice keeps its first (required) declaration.
      if (properties.has(name)) return;
      properties.set(name, parameterSchema(param));
      if (list === 'required_parameters') required.push(name);
    });
  }
  const parameters: JsonSchemaObject = { type: 'object', properties: Object.fromEntries(properties) };
  if (required.length > 0) parameters.required = required;
  const tool: Tool = {
    id: makeId([toolName, apiName], `${folder}/${toolName}/${apiName}`),
    name: apiName,
    description:
      text(api.description) ?? text(api.api_description) ?? ctx.toolDescription ?? `${apiName} (${toolName})`,
    category,
    parameters,
    examples: [],
    origin: { format: 'toolbench', category: folder, tool_name: toolName, api_name: apiName },
  };
  const response = responseOf(api, file, at);
  if (response !== undefined) tool.response_schema = response;
  return tool;
}

type SchemaObject = Exclude<JsonSchema, boolean>;

/**
 * ToolBench's parameter types (upper-case, some with a note: "DATE (YYYY-MM-DD)") as JSON Schema; unknown ones accept
 * anything.
 */
const PARAMETER_TYPES: Record<string, SchemaObject> = {
  STRING: { type: 'string' },
  STR: { type: 'string' },
  TEXT: { type: 'string' },
  CREDENTIALS: { type: 'string' },
  PASSWORD: { type: 'string' },
  GEOPOINT: { type: 'string' },
  TIME: { type: 'string' },
  FILE: { type: 'string' },
  BINARY: { type: 'string' },
  DATE: { type: 'string', format: 'date' },
  ENUM: { type: 'string' },
  NUMBER: { type: 'number' },
  FLOAT: { type: 'number' },
  DOUBLE: { type: 'number' },
  DECIMAL: { type: 'number' },
  INTEGER: { type: 'integer' },
  INT: { type: 'integer' },
  LONG: { type: 'integer' },
  BOOLEAN: { type: 'boolean' },
  BOOL: { type: 'boolean' },
  ARRAY: { type: 'array' },
  LIST: { type: 'array' },
  OBJECT: { type: 'object' },
  DICT: { type: 'object' },
  JSON: { type: 'object' },
  MAP: { type: 'object' },
};

function parameterSchema(param: JsonObject): SchemaObject {
  const typeName =
    typeof param.type === 'string' ? (/^[A-Za-z]+/.exec(param.type.trim())?.[0] ?? '').toUpperCase() : '';
  const schema: SchemaObject = { ...(Object.hasOwn(PARAMETER_TYPES, typeName) ? PARAMETER_TYPES[typeName] : {}) };
  const description = text(param.description);
  if (description) schema.description = description;
  // RapidAPI's "default" is the value its playground pre-fills: an example, kept only when it fits the type.
  const example = exampleValue(param.default, schema);
  if (example !== undefined) schema.examples = [example];
  return schema;
}

function exampleValue(value: unknown, schema: SchemaObject): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  switch (schema.type) {
    case 'string': {
      if (typeof value === 'object') return undefined;
      const s = String(value);
      return schema.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(s) ? undefined : s;
    }
    case 'number':
    case 'integer': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n))) return undefined;
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return /^(true|false)$/i.test(String(value)) ? String(value).toLowerCase() === 'true' : undefined;
    case 'array':
    case 'object': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      return (schema.type === 'array' ? Array.isArray(parsed) : isObject(parsed)) ? parsed : undefined;
    }
    default:
      return value;
  }
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * The response schema: from `template_response` (StableToolBench), else from RapidAPI's `schema` field when it holds
 * a usable JSON Schema; that field is optional scraped metadata, so one that does not compile is dropped, not an error.
 */
function responseOf(api: JsonObject, file: string, at: string): JsonSchema | undefined {
  const template = api.template_response;
  if (template !== undefined && template !== null && !(isObject(template) && Object.keys(template).length === 0)) {
    return templateSchema(template, 0);
  }
  const schema = api.schema;
  if (!isObject(schema) || (typeof schema.type !== 'string' && !isObject(schema.properties))) return undefined;
  try {
    return responseSchema(schema, file, pointer(at, 'schema'));
  } catch {
    return undefined;
  }
}

/** Python type names as StableToolBench writes them in templates. */
const TEMPLATE_TYPES: Record<string, SchemaObject> = {
  str: { type: 'string' },
  string: { type: 'string' },
  int: { type: 'integer' },
  integer: { type: 'integer' },
  float: { type: 'number' },
  number: { type: 'number' },
  bool: { type: 'boolean' },
  boolean: { type: 'boolean' },
  list: { type: 'array' },
  array: { type: 'array' },
  dict: { type: 'object' },
  object: { type: 'object' },
  // A value seen as None says nothing about its type.
  NoneType: {},
  None: {},
  null: {},
};

const MAX_TEMPLATE_DEPTH = 64;

/**
 * A type template ({"total": "int", "items": [{"id": "str"}]}) → JSON Schema. Keys seen in the template are
 * required: they were present in the observed response, and a simulator should answer with the same shape.
 */
export function templateSchema(template: unknown, depth = 0): SchemaObject {
  if (depth > MAX_TEMPLATE_DEPTH) return {};
  if (typeof template === 'string') {
    const name = template.trim();
    // Anything but a type name is a sample value that slipped into the template: a string.
    return { ...(Object.hasOwn(TEMPLATE_TYPES, name) ? TEMPLATE_TYPES[name] : { type: 'string' }) };
  }
  if (typeof template === 'number') return { type: Number.isInteger(template) ? 'integer' : 'number' };
  if (typeof template === 'boolean') return { type: 'boolean' };
  if (Array.isArray(template)) {
    const seen = new Map<string, SchemaObject>();
    for (const item of template) {
      const schema = templateSchema(item, depth + 1);
      seen.set(JSON.stringify(schema), schema);
    }
    const items = [...seen.values()];
    if (items.length === 0) return { type: 'array' };
    return { type: 'array', items: items.length === 1 ? items[0] : { anyOf: items } };
  }
  if (isObject(template)) {
    const keys = Object.keys(template);
    if (keys.length === 0) return { type: 'object' };
    return {
      type: 'object',
      properties: Object.fromEntries(keys.map((key) => [key, templateSchema(template[key], depth + 1)])),
      required: keys,
    };
  }
  return {};
}

function hostOf(apiList: unknown[]): string | undefined {
  for (const api of apiList) {
    const url = isObject(api) ? text(api.url) : undefined;
    if (!url) continue;
    try {
      return new URL(url).host;
    } catch {}
  }
  return undefined;
}
