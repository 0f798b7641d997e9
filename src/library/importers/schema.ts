/** Schemas handed in by imported files (MCP inputSchema/outputSchema, OpenAI parameters), checked and normalized. */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createAjv } from '../ajv.js';
import type { JsonSchema, JsonSchemaObject } from '../tool.js';
import { invalid, isObject, kind, pointer, type JsonObject } from './source.js';

let ajv: Ajv2020 | undefined;

/**
 * A tool's arguments schema: always `{type: "object", properties, …}`. A missing schema means "no arguments";
 * a schema without `type` or `properties` gets them; anything that is not an object schema is an error.
 */
export function parametersSchema(value: unknown, file: string, at: string): JsonSchemaObject {
  if (value === undefined || value === null) return { type: 'object', properties: {} };
  if (!isObject(value)) throw invalid(file, at, `must be a JSON Schema object, got ${kind(value)}`);
  const schema = detach(value);
  if (schema.type === undefined) schema.type = 'object';
  else if (schema.type !== 'object') {
    throw invalid(
      file,
      pointer(at, 'type'),
      `must be "object" (a tool takes one object of arguments), got ${JSON.stringify(schema.type)}`,
    );
  }
  if (schema.properties === undefined) schema.properties = {};
  else if (!isObject(schema.properties))
    throw invalid(file, pointer(at, 'properties'), `must be an object, got ${kind(schema.properties)}`);
  check(schema, file, at);
  return schema as JsonSchemaObject;
}

/** A response schema (MCP outputSchema): any JSON Schema, checked; absent stays absent. */
export function responseSchema(value: unknown, file: string, at: string): JsonSchema | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (!isObject(value)) throw invalid(file, at, `must be a JSON Schema object, got ${kind(value)}`);
  const schema = detach(value);
  check(schema, file, at);
  return schema;
}

/**
 * A copy without the root `$schema` and `$id`: zod-generated MCP schemas declare draft-07, which the project's
 * draft 2020-12 ajv would refuse to compile, and ids repeated across tools would clash inside one ajv instance.
 */
function detach(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** The schema must be one the simulator can compile: valid against the 2020-12 meta-schema, every $ref resolvable. */
function check(schema: JsonObject, file: string, at: string): void {
  ajv ??= createAjv();
  if (!ajv.validateSchema(schema)) {
    const first = ajv.errors?.[0];
    throw invalid(
      file,
      at + (first?.instancePath ?? ''),
      `not a valid JSON Schema: ${first?.message ?? 'rejected by the meta-schema'}`,
    );
  }
  try {
    ajv.compile(schema);
  } catch (error) {
    throw invalid(file, at, `not a usable JSON Schema: ${(error as Error).message}`);
  } finally {
    ajv.removeSchema(schema);
  }
}
