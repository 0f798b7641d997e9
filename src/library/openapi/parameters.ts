/**
 * An operation's inputs as the one object an agent fills: path, query, header and cookie parameters and the
 * request body merged into one object schema, with a binding per property saying where it goes on the wire.
 */
import type { JsonSchema, JsonSchemaObject, ParamBinding, ParamLocation } from '../tool.js';
import { convert, isJsonMediaType, pickJsonMediaType, type DocumentContext } from './context.js';
import { deref, isObject, type JsonObject } from './refs.js';
import { cut, MAX_DESCRIPTION_LENGTH, plainText } from './text.js';

export interface RequestShape {
  parameters: JsonSchemaObject;
  bindings: Record<string, ParamBinding>;
}

const LOCATIONS: readonly ParamLocation[] = ['path', 'query', 'header', 'cookie'];
/** Headers the HTTP client sets itself; OpenAPI says parameters with these names are ignored. */
const TRANSPORT_HEADERS = new Set(['content-type', 'accept', 'authorization']);

interface Parameter {
  name: string;
  in: ParamLocation;
  spec: JsonObject;
}

export function requestShape(context: DocumentContext, pathItem: JsonObject, operation: JsonObject): RequestShape {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const bindings: Record<string, ParamBinding> = {};
  const add = (name: string, location: ParamLocation, wireName: string, schema: JsonSchema, isRequired: boolean) => {
    let property = name;
    if (Object.hasOwn(properties, property)) property = `${location}_${name}`;
    for (let n = 2; Object.hasOwn(properties, property); n++) property = `${location}_${name}_${n}`;
    properties[property] = schema;
    bindings[property] = { in: location, name: wireName };
    if (isRequired) required.push(property);
  };

  const parameters = mergedParameters(context, pathItem, operation);
  for (const location of LOCATIONS) {
    for (const parameter of parameters.filter((p) => p.in === location)) {
      add(
        parameter.name,
        location,
        parameter.name,
        parameterSchema(context, parameter.spec),
        location === 'path' || parameter.spec.required === true,
      );
    }
  }

  const body = deref(context.document, operation.requestBody);
  if (isObject(body)) {
    const bodyRequired = body.required === true;
    const { schema, json } = bodySchema(context, body.content);
    const spread = json && typeof schema !== 'boolean' ? objectProperties(schema) : undefined;
    if (spread) {
      for (const [name, property] of Object.entries(spread.properties))
        add(name, 'body', name, property, bodyRequired && spread.required.has(name));
    } else {
      const description = cut(plainText(body.description), MAX_DESCRIPTION_LENGTH);
      const described =
        description && typeof schema !== 'boolean' && schema.description === undefined
          ? { ...schema, description }
          : schema;
      add('body', 'body', '', described, bodyRequired);
    }
  }

  const shape: JsonSchemaObject = { type: 'object', properties };
  if (required.length > 0) shape.required = required;
  return { parameters: shape, bindings };
}

/** Path-item parameters overridden by the operation's own with the same name and location. */
function mergedParameters(context: DocumentContext, pathItem: JsonObject, operation: JsonObject): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const spec = deref(context.document, item);
      if (!isObject(spec) || typeof spec.name !== 'string' || !spec.name) continue;
      const location = spec.in as ParamLocation;
      if (!LOCATIONS.includes(location)) continue;
      if (location === 'header' && TRANSPORT_HEADERS.has(spec.name.toLowerCase())) continue;
      const key = `${location} ${location === 'header' ? spec.name.toLowerCase() : spec.name}`;
      byKey.set(key, { name: spec.name, in: location, spec });
    }
  }
  return [...byKey.values()];
}

/** A parameter's schema (from `schema`, or from `content` for complex parameters) with its description and examples. */
function parameterSchema(context: DocumentContext, spec: JsonObject): JsonSchema {
  let raw: unknown = spec.schema;
  if (raw === undefined && isObject(spec.content)) {
    const media = spec.content[pickJsonMediaType(spec.content) ?? Object.keys(spec.content)[0] ?? ''];
    raw = isObject(media) ? media.schema : undefined;
  }
  const converted = raw === undefined ? { type: 'string' } : convert(context, raw, 'request');
  if (typeof converted === 'boolean') return converted;
  const schema = { ...converted };
  const description = cut(plainText(spec.description), MAX_DESCRIPTION_LENGTH);
  if (description) schema.description = description;
  if (spec.deprecated === true) schema.deprecated = true;
  const examples = parameterExamples(context, spec);
  if (examples.length > 0 && schema.examples === undefined) schema.examples = examples;
  return schema;
}

function parameterExamples(context: DocumentContext, spec: JsonObject): unknown[] {
  if (spec.example !== undefined) return [spec.example];
  if (!isObject(spec.examples)) return [];
  return Object.values(spec.examples)
    .map((example) => deref(context.document, example))
    .filter((example): example is JsonObject => isObject(example) && example.value !== undefined)
    .map((example) => example.value);
}

/** The request body's schema, preferring JSON; a body without a schema accepts any JSON value or any string. */
function bodySchema(context: DocumentContext, content: unknown): { schema: JsonSchema; json: boolean } {
  if (!isObject(content)) return { schema: {}, json: true };
  const mediaType = pickJsonMediaType(content) ?? Object.keys(content)[0];
  if (mediaType === undefined) return { schema: {}, json: true };
  const json = isJsonMediaType(mediaType);
  const media = content[mediaType];
  const raw = isObject(media) ? media.schema : undefined;
  if (raw === undefined) return { schema: json ? {} : { type: 'string' }, json };
  return { schema: convert(context, raw, 'request'), json };
}

/**
 * The properties of an object schema, looking through `allOf` (how documents compose bodies), or undefined
 * when the schema is not a plain object with properties (a map, an array, a oneOf…) and so cannot be spread.
 */
export function objectProperties(
  schema: JsonSchema,
): { properties: Record<string, JsonSchema>; required: Set<string> } | undefined {
  const collected = { properties: {} as Record<string, JsonSchema>, required: new Set<string>() };
  if (!collectProperties(schema, collected)) return undefined;
  return Object.keys(collected.properties).length > 0 ? collected : undefined;
}

function collectProperties(
  schema: JsonSchema,
  into: { properties: Record<string, JsonSchema>; required: Set<string> },
): boolean {
  if (schema === true) return true;
  if (schema === false || schema.oneOf !== undefined || schema.anyOf !== undefined || schema.not !== undefined)
    return false;
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length > 0 && !types.includes('object')) return false;
  if (Array.isArray(schema.allOf) && !(schema.allOf as JsonSchema[]).every((member) => collectProperties(member, into)))
    return false;
  if (isObject(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const existing = into.properties[name];
      into.properties[name] = existing === undefined ? property : { allOf: [existing, property] };
    }
  }
  if (Array.isArray(schema.required)) for (const name of schema.required as string[]) into.required.add(name);
  return true;
}
