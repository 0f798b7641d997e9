import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { schemasDir } from '../paths.js';
import { createAjv } from '../library/ajv.js';

/** The published schemas of the protocol's JSON blocks, compiled once per process on first use. */
export type BlockKind = 'plan' | 'search_tool' | 'tool_call';

const FILES: Record<BlockKind, string> = {
  plan: 'plan.schema.json',
  search_tool: 'search-tool.schema.json',
  tool_call: 'tool-call.schema.json',
};

let validators: Record<BlockKind, ValidateFunction> | undefined;

function compiled(): Record<BlockKind, ValidateFunction> {
  if (!validators) {
    const ajv = createAjv();
    const compile = (file: string) => ajv.compile(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as object);
    validators = {
      plan: compile(FILES.plan),
      search_tool: compile(FILES.search_tool),
      tool_call: compile(FILES.tool_call),
    };
  }
  return validators;
}

/** Why a block fails its schema, as one readable clause per error; empty when it passes. */
export function blockErrors(kind: BlockKind, value: unknown): string[] {
  const validate = compiled()[kind];
  if (validate(value)) return [];
  return describe(validate.errors ?? []);
}

function describe(errors: readonly ErrorObject[]): string[] {
  // if/then and anyOf add summary errors on top of the specific ones; the specific ones say more.
  const specific = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'anyOf');
  const clauses = (specific.length > 0 ? specific : errors).map((e) => {
    const where = e.instancePath === '' ? '' : `${e.instancePath.slice(1).replaceAll('/', '.')} `;
    switch (e.keyword) {
      case 'additionalProperties':
        return (
          `${where}has an unknown member ` +
          `${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
        );
      case 'required':
        return `${where}is missing ${JSON.stringify((e.params as { missingProperty: string }).missingProperty)}`;
      case 'type':
        return `${where}must be ${String((e.params as { type: string | string[] }).type).replace(',', ' or ')}`;
      case 'pattern':
        return `${where}must be a short id of letters, digits, _ and - starting with a letter`;
      default:
        return `${where}${e.message ?? 'is invalid'}`;
    }
  });
  return [...new Set(clauses)];
}
