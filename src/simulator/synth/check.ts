import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import type { JsonSchema } from '../../library/tool.js';
import { createAjv } from '../../library/ajv.js';

// Made on the first check, so that loading this module does not load ajv.
let made: ReturnType<typeof createAjv> | undefined;
const ajv = () => (made ??= createAjv());

// ajv keeps every schema it compiled in its own cache, so evicting ours must evict ajv's too or memory only grows.
const validators = new LRUCache<object, { validate: ValidateFunction | undefined }>({
  max: 4096,
  dispose: (_entry, schema) => ajv().removeSchema(schema),
});

/**
 * Whether `value` satisfies `schema`, for the few keywords the walker cannot build in (`not`, the oneOf branches not
 * taken, `maxContains`). Compiled on first use per schema object; undefined when the schema does not compile.
 */
export function satisfies(schema: JsonSchema, value: unknown): boolean | undefined {
  if (typeof schema === 'boolean') return schema;
  const validate = compiled(schema);
  return validate ? validate(value) : undefined;
}

/** What in `value` breaks `schema` (empty when nothing does); undefined when the schema does not compile. */
export function violations(schema: JsonSchema, value: unknown): ErrorObject[] | undefined {
  if (typeof schema === 'boolean')
    return schema ? [] : [{ instancePath: '', schemaPath: '#', keyword: 'false schema', params: {} }];
  const validate = compiled(schema);
  if (!validate) return undefined;
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function compiled(schema: object): ValidateFunction | undefined {
  let entry = validators.get(schema);
  if (!entry) {
    let validate: ValidateFunction | undefined;
    try {
      validate = ajv().compile(schema);
    } catch {
      validate = undefined;
    }
    entry = { validate };
    validators.set(schema, entry);
  }
  return entry.validate;
}
