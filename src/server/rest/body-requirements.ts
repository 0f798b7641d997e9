/**
 * How many members a JSON request body lacks of what an operation requires of it, to tell apart variants of one
 * method and path that differ only by their bodies (Box's `PUT …/schema#add`, `#update` and `#delete` take arrays of
 * different operations). Members are counted at every level the body reaches, each array item on its own.
 */
import { isObject } from '../../library/openapi/refs.js';
import type { JsonSchema, Tool } from '../../library/tool.js';

/** Levels of the body looked into: enough for an array of objects with an object member. */
const MAX_DEPTH = 4;

export function missingBodyMembers(tool: Tool, body: unknown): number {
  let missing = 0;
  const required = new Set(tool.parameters.required ?? []);
  for (const [property, binding] of Object.entries(tool.bindings ?? {})) {
    if (binding.in !== 'body') continue;
    const schema = tool.parameters.properties[property];
    if (binding.name === '') missing += missingIn(schema, body, 0);
    else if (isObject(body) && body[binding.name] !== undefined) missing += missingIn(schema, body[binding.name], 0);
    else if (required.has(property)) missing++;
  }
  return missing;
}

function missingIn(schema: JsonSchema | undefined, value: unknown, depth: number): number {
  if (!isObject(schema) || depth >= MAX_DEPTH) return 0;
  if (Array.isArray(value))
    return value.reduce<number>((sum, item) => sum + missingIn(schema.items as JsonSchema, item, depth + 1), 0);
  if (!isObject(value)) return 0;
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  let missing = 0;
  for (const name of Array.isArray(schema.required) ? schema.required : [])
    if (typeof name === 'string' && value[name] === undefined) missing++;
  for (const [name, member] of Object.entries(value)) missing += missingIn(properties[name], member, depth + 1);
  return missing;
}
