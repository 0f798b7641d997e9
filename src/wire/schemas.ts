import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../paths.js';

export type JsonSchema = Record<string, unknown>;

/** One file of schemas/: its id and its definitions. */
export interface SchemaFile {
  $id: string;
  $defs: Record<string, JsonSchema>;
}

export type SchemaName = 'trajectory' | 'rewards' | 'server' | 'tool';

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

/** The files whose definitions are wire shapes; no name is defined in two of them. */
const SHAPE_FILES = ['trajectory', 'rewards', 'server'] as const;

/** A definition by its name, in whichever file holds it. */
export function schemaDefinition(name: string): JsonSchema | undefined {
  for (const file of SHAPE_FILES) {
    const found = schemaFile(file).$defs[name];
    if (found) return found;
  }
  return undefined;
}

/**
 * Every wire shape as an OpenAPI component schema, for the server's own document: the files' definitions, and the
 * tool record (tool.schema.json) as `Tool` beside its `JsonSchema`. Refs within a file (`#/$defs/X`) and across files
 * (`https://toolenv.dev/schemas/F.schema.json#/$defs/X`, or a whole file) become `#/components/schemas/X`. Converted
 * once; callers that change a schema copy it.
 */
export function componentSchemas(): Readonly<Record<string, JsonSchema>> {
  components ??= convertedComponents();
  return components;
}

let components: Record<string, JsonSchema> | undefined;

function convertedComponents(): Record<string, JsonSchema> {
  const { $defs, $schema: _s, $id: _i, title: _t, ...tool } = schemaFile('tool') as SchemaFile & JsonSchema;
  const merged: Record<string, unknown> = { Tool: tool, ...$defs };
  for (const file of SHAPE_FILES) Object.assign(merged, schemaFile(file).$defs);
  const converted = JSON.parse(
    JSON.stringify(merged)
      .replaceAll(`"${schemaFile('tool').$id}"`, '"#/components/schemas/Tool"')
      .replace(/"(?:https:\/\/toolenv\.dev\/schemas\/[a-z-]+\.schema\.json)?#\/\$defs\//g, '"#/components/schemas/'),
  ) as Record<string, JsonSchema>;
  for (const schema of Object.values(converted)) mapDiscriminator(schema, converted);
  return converted;
}

/**
 * A discriminator's mapping, from the `const` each `oneOf` member gives its property. Without one an OpenAPI reader
 * takes the members' component names for the values (Schemathesis flags `"assert": "exists"`); schemas/ cannot state
 * it, as Ajv's discriminator keyword refuses a mapping.
 */
function mapDiscriminator(schema: JsonSchema, components: Record<string, JsonSchema>): void {
  const discriminator = schema.discriminator as { propertyName: string; mapping?: Record<string, string> } | undefined;
  if (!discriminator || !Array.isArray(schema.oneOf)) return;
  const mapping: Record<string, string> = {};
  for (const member of schema.oneOf as { $ref?: string }[]) {
    const ref = member.$ref ?? '';
    const properties = components[ref.slice('#/components/schemas/'.length)]?.properties as
      | Record<string, { const?: unknown }>
      | undefined;
    const value = properties?.[discriminator.propertyName]?.const;
    if (typeof value !== 'string')
      throw new Error(`discriminator member ${ref} has no const ${discriminator.propertyName}`);
    mapping[value] = ref;
  }
  discriminator.mapping = mapping;
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
