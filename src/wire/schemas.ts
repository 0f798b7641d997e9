import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../paths.js';

export type JsonSchema = Record<string, unknown>;

/** One file of schemas/: its id and its definitions. */
export interface SchemaFile {
  $id: string;
  $defs: Record<string, JsonSchema>;
}

export type SchemaName = 'trajectory' | 'rewards';

const files = new Map<SchemaName, SchemaFile>();

/** schemas/NAME.schema.json, read once. */
export function schemaFile(name: SchemaName): SchemaFile {
  let file = files.get(name);
  if (!file) {
    file = JSON.parse(readFileSync(join(schemasDir, `${name}.schema.json`), 'utf8')) as SchemaFile;
    files.set(name, file);
  }
  return file;
}

/** A definition by its name, in whichever file holds it (no name is defined in both). */
export function schemaDefinition(name: string): JsonSchema | undefined {
  return schemaFile('trajectory').$defs[name] ?? schemaFile('rewards').$defs[name];
}

/**
 * A number the contract states, by JSON pointer into a schema file (`/$defs/StepRequest/properties/actions/maxItems`):
 * limits are written once, in schemas/, and read from there.
 */
export function schemaNumber(name: SchemaName, pointer: string): number {
  const value = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, token) =>
        (node as Record<string, unknown> | undefined)?.[token.replaceAll('~1', '/').replaceAll('~0', '~')],
      schemaFile(name),
    );
  if (typeof value !== 'number') throw new Error(`schemas/${name}.schema.json#${pointer} is not a number`);
  return value;
}
