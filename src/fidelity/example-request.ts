import { pickJsonMediaType } from '../library/openapi/context.js';
import { deref, isObject } from '../library/openapi/refs.js';
import type { Tool } from '../library/tool.js';
import type { Arguments } from '../simulator/types.js';
import type { Rules } from '../simulator/validate.js';
import { validRequest } from './request.js';

/** A valid request carrying the operation's documented request values where the Rule layer takes them. */
export interface ExampleRequest {
  args: Arguments;
  /** Arguments whose value came from the document (a parameter's example, the request body's example). */
  documented: number;
}

/**
 * The request `fidelity --examples` sends: a synthesized valid request (validRequest) with the document's own
 * request examples laid over it — each parameter's first example, the request body's example (whole, or field by
 * field where the tool spreads the body into its parameters). All of them when the Rule layer takes them together,
 * else one by one, keeping those it takes. Undefined when no valid request is found.
 */
export function exampleRequest(tool: Tool, document: unknown, rules: Rules, seed: number): ExampleRequest | undefined {
  const base = validRequest(tool, rules, seed);
  if (!base) return undefined;
  const documented = documentedValues(tool, document);
  const names = Object.keys(documented);
  const all = rules.check(tool.id, { ...base, ...documented });
  if (all.ok) return { args: all.args, documented: names.length };
  let args = base;
  let taken = 0;
  for (const name of names) {
    const checked = rules.check(tool.id, { ...args, [name]: documented[name] });
    if (!checked.ok) continue;
    args = checked.args;
    taken++;
  }
  return { args, documented: taken };
}

/** Argument → its documented value, for the arguments the document gives one. */
function documentedValues(tool: Tool, document: unknown): Arguments {
  const out: Arguments = {};
  const body =
    tool.origin.format === 'openapi' ? bodyExample(document, tool.origin.path, tool.origin.method) : undefined;
  for (const [name, schema] of Object.entries(tool.parameters.properties)) {
    const binding = tool.bindings?.[name];
    if (binding?.in === 'body' && body !== undefined) {
      if (binding.name === '') out[name] = body;
      else if (isObject(body) && Object.hasOwn(body, binding.name)) out[name] = body[binding.name];
      if (Object.hasOwn(out, name)) continue;
    }
    if (typeof schema === 'object' && Array.isArray(schema.examples) && schema.examples.length > 0)
      out[name] = schema.examples[0];
  }
  return out;
}

/** The JSON request body's example: the media type's `example`, its first `examples` entry, or its schema's. */
function bodyExample(document: unknown, path: string, method: string): unknown {
  const paths = isObject(document) ? document.paths : undefined;
  const item = isObject(paths) ? deref(document, paths[path]) : undefined;
  const operation = isObject(item) ? item[method.toLowerCase()] : undefined;
  const requestBody = isObject(operation) ? deref(document, operation.requestBody) : undefined;
  const content = isObject(requestBody) ? requestBody.content : undefined;
  const type = pickJsonMediaType(content);
  const media = type !== undefined && isObject(content) ? content[type] : undefined;
  if (!isObject(media)) return undefined;
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples))
    for (const example of Object.values(media.examples)) {
      const resolved = deref(document, example);
      if (isObject(resolved) && resolved.value !== undefined) return resolved.value;
    }
  const schema = deref(document, media.schema);
  return isObject(schema) ? schema.example : undefined;
}
