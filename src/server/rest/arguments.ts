import type { JsonSchema, Tool } from '../../library/tool.js';
import { isPlainObject } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';
import { bracketed } from './brackets.js';
import { coerceValues, propertySchema } from './coerce.js';

/** A request body as the REST surface received it. */
export type RestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Map<string, string[]> }
  | { kind: 'text'; value: string };

/** Everything of one HTTP request that can carry a tool's arguments. */
export interface RestRequest {
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** The query string without ToolEnv's own control parameters. */
  query: URLSearchParams;
  header(name: string): string | undefined;
  cookies: Record<string, string>;
  body: RestBody | undefined;
}

/**
 * Rebuilds the merged `arguments` object of a tool from a real HTTP request, the inverse of `toHttpRequest`:
 * every property of `parameters` is read from where `tool.bindings` says it travels, and strings are coerced by
 * the property's schema. Properties absent from the request stay absent (validation reports missing required ones).
 */
export function buildArguments(tool: Tool, request: RestRequest): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const bodyObject = namedBodyFields(tool, request.body);
  for (const [property, binding] of Object.entries(tool.bindings ?? {})) {
    const schema = propertySchema(tool.parameters, property);
    let value: unknown;
    switch (binding.in) {
      case 'path':
        if (Object.hasOwn(request.params, binding.name)) value = coerceValues([request.params[binding.name]!], schema);
        // A path key that templates its query (`/alerts?lat={lat}&lon={lon}`) declares those parameters in: path,
        // but a client following the document sends them in the query string.
        else value = fromQuery(request.query, binding.name, schema);
        break;
      case 'query':
        value = fromQuery(request.query, binding.name, schema);
        break;
      case 'header': {
        const text = request.header(binding.name);
        // Array headers are comma lists (OpenAPI's `simple` style), which coerceValues splits.
        if (text !== undefined) value = coerceValues([text], schema);
        break;
      }
      case 'cookie':
        if (Object.hasOwn(request.cookies, binding.name))
          value = coerceValues([request.cookies[binding.name]!], schema);
        break;
      case 'body':
        value = binding.name === '' ? wholeBody(request.body, schema) : bodyObject?.get(binding.name, schema);
        break;
    }
    if (value !== undefined) args[property] = value;
  }
  return args;
}

function fromQuery(query: URLSearchParams, name: string, schema: JsonSchema | undefined): unknown {
  const values = query.getAll(name);
  if (values.length > 0) return coerceValues(values, schema);
  // deepObject style and bracket encoding: filter[status]=sold&filter[limit]=2, tags[]=a&tags[]=b
  return bracketed(query, name, schema);
}

function wholeBody(body: RestBody | undefined, schema: JsonSchema | undefined): unknown {
  if (body === undefined) return undefined;
  switch (body.kind) {
    case 'json':
      return body.value;
    case 'text':
      return body.value;
    case 'form': {
      const object: Record<string, unknown> = {};
      const pairs = formPairs(body.fields);
      for (const [name, values] of body.fields) {
        const bracket = name.indexOf('[');
        if (bracket <= 0) object[name] = coerceValues(values, propertySchema(schema, name));
        else {
          const member = name.slice(0, bracket);
          object[member] ??= bracketed(pairs, member, propertySchema(schema, member));
        }
      }
      return object;
    }
  }
}

/** Reads named members of the body (`{in: "body", name: "status"}`), from a JSON object or form fields. */
function namedBodyFields(
  tool: Tool,
  body: RestBody | undefined,
): { get(name: string, schema: JsonSchema | undefined): unknown } | undefined {
  if (body === undefined) return undefined;
  const names = Object.values(tool.bindings ?? {})
    .filter((b) => b.in === 'body' && b.name !== '')
    .map((b) => b.name);
  if (names.length === 0) return undefined;
  if (body.kind === 'form') {
    const pairs = formPairs(body.fields);
    return {
      get: (name, schema) =>
        body.fields.has(name) ? coerceValues(body.fields.get(name)!, schema) : bracketed(pairs, name, schema),
    };
  }
  if (body.kind === 'json' && isPlainObject(body.value)) {
    const object = body.value;
    return { get: (name) => (Object.hasOwn(object, name) ? object[name] : undefined) };
  }
  throw httpProblem(
    400,
    'the request body must be a JSON object (or a form) with the members ' +
      `${names.map((n) => JSON.stringify(n)).join(', ')}`,
    {
      title: 'Invalid request body',
    },
  );
}

function formPairs(fields: Map<string, string[]>): [string, string][] {
  return [...fields].flatMap(([name, values]) => values.map((value): [string, string] => [name, value]));
}
