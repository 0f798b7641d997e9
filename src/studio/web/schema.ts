import { h, type Child } from './dom.js';
import type { Json, Schema } from './types.js';

/** JSON Schema as a readable table: one row per property (nested objects and array items indented below it). */

const MAX_DEPTH = 5;
const COLLAPSE_OVER = 30;

export function schemaTable(
  schema: Schema | undefined,
  bindings?: Record<string, { in: string; name: string }>,
): HTMLElement {
  if (schema === undefined) return h('p', { class: 'muted' }, 'No schema.');
  const rows: HTMLElement[] = [];
  const root = asObject(schema) ?? {};
  if (properties(root)) addProperties(rows, root, 0, bindings);
  else {
    // A list endpoint answers an array: its items' fields go under the one row of the whole value.
    rows.push(row('(value)', root, false, 0));
    const nested = nestedOf(root);
    if (nested) addProperties(rows, nested, 1);
  }
  if (rows.length === 0) return h('p', { class: 'muted' }, 'Takes no parameters.');
  const table = h(
    'table',
    { class: 'schema' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'name'),
        h('th', null, 'type'),
        h('th', null, 'in'),
        h('th', null, 'description and constraints'),
      ),
    ),
    h('tbody', null, rows),
  );
  // A large response (GitHub's repository is 90 fields) stays one click away instead of pushing the rest down.
  return rows.length > COLLAPSE_OVER ? h('details', null, h('summary', null, `${rows.length} fields`), table) : table;
}

function addProperties(
  rows: HTMLElement[],
  schema: Json,
  depth: number,
  bindings?: Record<string, { in: string; name: string }>,
): void {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, child] of Object.entries(properties(schema) ?? {})) {
    const object = asObject(child) ?? {};
    const binding = bindings?.[name];
    rows.push(
      row(
        name,
        object,
        required.has(name),
        depth,
        binding && `${binding.in}${binding.name && binding.name !== name ? ` ${binding.name}` : ''}`,
      ),
    );
    if (depth + 1 >= MAX_DEPTH) continue;
    const nested = properties(object) ? object : nestedOf(object);
    if (nested) addProperties(rows, nested, depth + 1);
  }
}

function row(name: string, schema: Json, required: boolean, depth: number, location?: string): HTMLElement {
  return h(
    'tr',
    null,
    h(
      'td',
      { class: 'name', style: `padding-left: ${0.5 + depth * 1.25}rem` },
      h('code', null, name),
      required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
    ),
    h('td', { class: 'type' }, typeOf(schema)),
    h('td', { class: 'muted' }, location ?? ''),
    h(
      'td',
      null,
      typeof schema.description === 'string' ? h('div', null, schema.description) : null,
      constraints(schema),
    ),
  );
}

/** The object whose fields sit under a value: an array's items, or an object among its alternatives. */
function nestedOf(schema: Json): Json | undefined {
  return [asObject(schema.items), ...alternatives(schema)].find(
    (candidate): candidate is Json => candidate !== undefined && properties(candidate) !== undefined,
  );
}

/** The object schemas of a oneOf or anyOf (a nullable object is `anyOf: [{…}, {type: null}]`). */
function alternatives(schema: Json): Json[] {
  const listed = (['oneOf', 'anyOf'] as const).flatMap((key) =>
    Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [],
  );
  return listed.map(asObject).filter((s): s is Json => s !== undefined);
}

export function typeOf(schema: Json): string {
  if (Array.isArray(schema.enum)) return 'enum';
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).join(' | ')
    : typeof schema.type === 'string'
      ? schema.type
      : undefined;
  const alternatives = (['oneOf', 'anyOf'] as const).map((k) => schema[k]).find(Array.isArray) as Schema[] | undefined;
  if (!type && alternatives) return alternatives.map((s) => typeOf(asObject(s) ?? {})).join(' | ');
  const items = asObject(schema.items);
  if (type === 'array' && items) return `${typeOf(items)}[]`;
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  return `${type ?? 'any'}${format}`;
}

function constraints(schema: Json): Child {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  for (const key of [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'pattern',
    'default',
  ]) {
    if (schema[key] !== undefined) parts.push(`${key} ${JSON.stringify(schema[key])}`);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0)
    parts.push(`e.g. ${JSON.stringify(schema.examples[0])}`);
  else if (schema.example !== undefined) parts.push(`e.g. ${JSON.stringify(schema.example)}`);
  return parts.length === 0 ? null : h('div', { class: 'constraints' }, parts.join(' · '));
}

export function asObject(schema: unknown): Json | undefined {
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Json) : undefined;
}

function properties(schema: Json): Record<string, Schema> | undefined {
  const props = asObject(schema.properties);
  return props && Object.keys(props).length > 0 ? (props as Record<string, Schema>) : undefined;
}

/** A value a "try it" field starts with: the schema's default, example or first enum value, else nothing. */
export function sampleValue(schema: Json): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  return undefined;
}
