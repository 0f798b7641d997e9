import type { JsonSchemaObject, Tool } from '../../library/tool.js';
import { synthesize } from '../../simulator/synth/index.js';

/** A value a query can state in words: what synthesized tasks give the agent. */
export type Scalar = string | number | boolean;

/** Required parameters a task may state beside the linked one: more and the query stops reading like a request. */
export const MAX_GIVEN_ARGUMENTS = 4;
/** Longest string value a query quotes. */
export const MAX_VALUE_CHARS = 60;

/**
 * Concrete values for a tool's required parameters (all but `skip`, the ones an upstream result fills), made by
 * the synthesizer's value layer from each parameter's schema, name and format, so they are plausible and valid:
 * the same tool and seed always give the same values. Undefined when a value is not a short scalar a query can
 * state (an object, an array, a paragraph) or there are too many to state. `optional` adds that many of the
 * optional body members with a scalar type: what a write task sets beside the required ones (an update's change).
 */
export function synthArguments(
  tool: Tool,
  skip: ReadonlySet<string>,
  seed: number,
  optional = 0,
): Record<string, Scalar> | undefined {
  const required = tool.parameters.required ?? [];
  const extra = Object.entries(tool.parameters.properties)
    .filter(([name, schema]) => !required.includes(name) && isScalarSchema(schema) && inBody(tool, name))
    .slice(0, optional)
    .map(([name]) => name);
  const names = [...required, ...extra].filter((name) => !skip.has(name));
  if (names.length > MAX_GIVEN_ARGUMENTS) return undefined;
  if (names.length === 0) return {};
  const schema: JsonSchemaObject = {
    type: 'object',
    required: names,
    properties: Object.fromEntries(names.map((name) => [name, tool.parameters.properties[name] ?? {}])),
  };
  // The response synthesizer, asked for an object shaped like these parameters, under an id of its own.
  const { body } = synthesize(
    { ...tool, id: `${tool.id}#arguments`, response_status: 200, response_schema: schema, examples: [] },
    {},
    seed,
  );
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const values = body as Record<string, unknown>;
  const out: Record<string, Scalar> = {};
  for (const name of names) {
    const value = values[name];
    if (!isStatable(value)) return undefined;
    out[name] = value;
  }
  return out;
}

function isStatable(value: unknown): value is Scalar {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  // `{{…}}` would read as a template reference in a ParaAct call; a quote or a line break breaks the sentence.
  return (
    typeof value === 'string' &&
    value.trim() !== '' &&
    value.length <= MAX_VALUE_CHARS &&
    !/[\n\r"]|\{\{|\}\}/.test(value)
  );
}

function isScalarSchema(schema: unknown): boolean {
  const type = typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
  return ['string', 'integer', 'number', 'boolean'].includes(String(type));
}

/** Sent in the request body (bound there, or unbound and not a path parameter). */
function inBody(tool: Tool, name: string): boolean {
  const binding = tool.bindings?.[name];
  if (binding) return binding.in === 'body' && binding.name !== '';
  return tool.origin.format === 'openapi' && !tool.origin.path.includes(`{${name}}`);
}
