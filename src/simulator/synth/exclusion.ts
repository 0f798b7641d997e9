import type { JsonSchema } from '../../library/tool.js';
import { canonicalJson } from '../canonical.js';
import { satisfies } from './check.js';
import { rng } from './faker.js';
import { jsonType } from './fits.js';
import type { Flat } from './flat.js';
import { keyAllowed, propertySchemas } from './objects.js';

/** Whether a value meets the checks its flat schema could not build in: `mustMatch`, and none of `mustNotMatch`. */
export function passes(flat: Flat, value: unknown): boolean {
  for (const schema of flat.mustMatch) if (satisfies(schema, value) === false) return false;
  for (const schema of flat.mustNotMatch)
    if (!surelyMisses(schema, value) && satisfies(schema, value) === true) return false;
  return true;
}

/**
 * A look at a schema's own type, enum, const and required that proves a value does not match it, sparing a compile:
 * most oneOf branches not taken differ from the value in exactly these.
 */
export function surelyMisses(schema: JsonSchema, value: unknown, depth = 0): boolean {
  if (typeof schema !== 'object') return !schema;
  const { type, required, properties, additionalProperties } = schema as {
    type?: unknown;
    required?: unknown;
    properties?: unknown;
    additionalProperties?: unknown;
  };
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    const actual = jsonType(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return true;
  }
  if ('const' in schema && canonicalJson(schema.const) !== canonicalJson(value)) return true;
  if (Array.isArray(schema.enum) && !schema.enum.some((member) => canonicalJson(member) === canonicalJson(value)))
    return true;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (Array.isArray(required))
      for (const key of required) if (typeof key === 'string' && !Object.hasOwn(value, key)) return true;
    const declared =
      properties !== null && typeof properties === 'object' ? (properties as Record<string, JsonSchema>) : undefined;
    if (additionalProperties === false && !('patternProperties' in schema)) {
      for (const key in value) if (!declared || !Object.hasOwn(declared, key)) return true;
    }
    // A discriminator (`kind: {const: "dog"}`) usually sits a level or two down.
    if (declared && depth < 3) {
      for (const key in declared) {
        if (
          Object.hasOwn(value, key) &&
          surelyMisses(declared[key]!, (value as Record<string, unknown>)[key], depth + 1)
        )
          return true;
      }
    }
  }
  return false;
}

const SPOILERS: unknown[] = [null, '', 0, false, [], {}];

/**
 * OpenAPI's oneOf branches are often objects that declare different fields but require none of them, so one
 * value matches several. For each branch not taken that the object still matches, this sets a field that
 * branch declares (and the taken one leaves open) to a value of a type that branch refuses. Says whether it changed
 * anything.
 */
export function spoil(flat: Flat, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || flat.mustNotMatch.length === 0)
    return false;
  const record = value as Record<string, unknown>;
  const declared = new Set<string>();
  for (const part of flat.objects) if (part.properties) for (const key in part.properties) declared.add(key);
  let changed = false;
  for (const other of flat.mustNotMatch) {
    if (Object.keys(record).length >= (flat.maxProperties ?? Infinity)) break;
    if (surelyMisses(other, record) || satisfies(other, record) !== true) continue;
    const fields = declaredFields(other);
    for (const key of rng.shuffle(Object.keys(fields))) {
      if (Object.hasOwn(record, key) || declared.has(key) || !keyAllowed(flat, key, declared)) continue;
      const open = propertySchemas(flat, key) ?? [];
      const spoiler = SPOILERS.find(
        (candidate) =>
          surelyMisses(fields[key]!, candidate) && open.every((schema) => satisfies(schema, candidate) !== false),
      );
      if (spoiler === undefined) continue;
      record[key] = structuredClone(spoiler);
      changed = true;
      break;
    }
  }
  return changed;
}

/** The properties a schema declares itself or through its allOf members. */
function declaredFields(schema: JsonSchema): Record<string, JsonSchema> {
  if (typeof schema !== 'object') return {};
  const out: Record<string, JsonSchema> = { ...((schema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  if (Array.isArray(schema.allOf))
    for (const member of schema.allOf) Object.assign(out, declaredFields(member as JsonSchema));
  return out;
}
