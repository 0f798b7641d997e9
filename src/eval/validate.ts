import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv } from '../library/ajv.js';

/** Compiles a task schema with the project's ajv configuration. */
export function compileSchema(schema: object): ValidateFunction {
  return createAjv().compile(schema);
}

/** ajv's errors as one readable clause: `has an unknown member "x"`, `/answer must NOT have fewer than 1 items`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  const clauses = (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '' : `${e.instancePath} `;
    if (e.keyword === 'additionalProperties')
      return (
        `${where}has an unknown member ` +
        `${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
      );
    if (e.keyword === 'required')
      return `${where}is missing ${JSON.stringify((e.params as { missingProperty: string }).missingProperty)}`;
    if (e.keyword === 'type')
      return `${where}must be ${String((e.params as { type: string | string[] }).type).replace(',', ' or ')}`;
    return `${where}${e.message ?? 'is invalid'}`;
  });
  return [...new Set(clauses)].join('; ') || 'is invalid';
}
