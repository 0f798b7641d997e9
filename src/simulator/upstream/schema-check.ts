import type { JsonSchema } from '../../library/tool.js';
import { createAjv } from '../../library/ajv.js';

/** Whether a body satisfies a schema: true / false, or undefined when the schema does not compile. */
export type SchemaVerdict = boolean | undefined;

/**
 * One ajv (the project's configuration) validating one body per schema and forgetting the schema afterwards: a
 * sample of 2,000 tools compiles each schema about once, so keeping them would only grow memory.
 */
export function schemaChecker(): (schema: JsonSchema, body: unknown) => SchemaVerdict {
  const ajv = createAjv();
  return (schema, body) => {
    if (typeof schema === 'boolean') return schema;
    try {
      return ajv.validate(schema, body);
    } catch {
      return undefined;
    } finally {
      ajv.removeSchema(schema);
    }
  };
}
