import type { ErrorObject } from 'ajv';
import type { JsonSchema } from './schemas.js';

/** One wrong member of a request: a JSON pointer into it and what is wrong there. */
export interface FieldError {
  path: string;
  message: string;
}

/** Finds a definition by name, for `$ref`s the errors' schemas hold (`#/$defs/X`, or another file's `…#/$defs/X`). */
export type Definitions = (name: string) => JsonSchema | undefined;

/**
 * ajv's errors (compiled with `verbose`, so each carries its schema and data) as the field errors a 400 lists: one
 * sentence per wrong member, naming what was expected and what came ("must be an integer from 1 to 1000, got 0").
 * A failed `oneOf` reads as the one branch the value's type fits, or as one sentence naming the branches.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], defs: Definitions): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const error of describeAll(errors, defs)) seen.set(`${error.path}\u0000${error.message}`, error);
  return [...seen.values()];
}

function describeAll(errors: readonly ErrorObject[], defs: Definitions): FieldError[] {
  // A branch's errors come before its oneOf's; the outermost oneOf speaks for all of them.
  const branched = new Map<ErrorObject, ErrorObject[]>();
  const inside = new Set<ErrorObject>();
  const alternatives = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const alternative of alternatives) {
    if (inside.has(alternative)) continue;
    const within = errors.filter((e) => e !== alternative && e.schemaPath.startsWith(`${alternative.schemaPath}/`));
    for (const e of within) inside.add(e);
    branched.set(alternative, within);
  }
  const conditions = new Map<ErrorObject, FieldError>();
  for (const error of errors) {
    const rule = error.keyword === 'if' ? onlyWith(error) : undefined;
    if (!rule) continue;
    const then = `${error.schemaPath.slice(0, -'/if'.length)}/then/`;
    for (const e of errors) if (e.schemaPath.startsWith(then)) inside.add(e);
    conditions.set(error, rule);
  }
  return errors.flatMap((error) => {
    if (inside.has(error) || namedButFailed(error, defs)) return [];
    const within = branched.get(error);
    if (within) return describeAlternatives(error, within, defs);
    const rule = conditions.get(error);
    if (rule) return [rule];
    return error.keyword === 'if' ? [] : [describe(error, defs)];
  });
}

/**
 * `{"if": {"required": [M]}, "then": {"required": [O], "properties": {O: {"const": V}}}}`: member M applies only
 * where O is V (`tool_parser` only with `protocol: "chat"`).
 */
function onlyWith(error: ErrorObject): FieldError | undefined {
  const rule = error.parentSchema as { if?: JsonSchema; then?: JsonSchema } | undefined;
  const member = requiredOnly(rule?.if ?? {});
  const other = (rule?.then?.required as string[] | undefined)?.[0];
  const wanted = (rule?.then?.properties as Record<string, JsonSchema> | undefined)?.[other ?? '']?.const;
  if (member?.length !== 1 || other === undefined || wanted === undefined) return undefined;
  return {
    path: pointer(error.instancePath, member[0]!),
    message: `applies to ${other} ${JSON.stringify(wanted)} only`,
  };
}

/**
 * A member the schema names, reported unevaluated only because its own check failed (a failing subschema yields no
 * annotations): that failure is already reported.
 */
function namedButFailed(error: ErrorObject, defs: Definitions): boolean {
  if (error.keyword !== 'unevaluatedProperties') return false;
  const member = String((error.params as { unevaluatedProperty: string }).unevaluatedProperty);
  return memberNames((error.parentSchema ?? {}) as JsonSchema, defs).includes(member);
}

function describeAlternatives(error: ErrorObject, within: ErrorObject[], defs: Definitions): FieldError[] {
  const path = error.instancePath;
  const branches = error.schema as JsonSchema[];
  const passing = (error.params as { passingSchemas?: number[] | null }).passingSchemas;
  const required = branches.map((branch) => requiredOnly(branch));
  if (required.every((names) => names !== undefined)) {
    // Only an object has members: the type error at this path says the rest.
    if (typeof error.data !== 'object' || error.data === null || Array.isArray(error.data)) return [];
    const names = required.flat().map((name) => JSON.stringify(name));
    return [
      { path, message: passing ? `takes one of ${names.join(', ')}, not more` : `needs one of ${names.join(', ')}` },
    ];
  }
  if (!passing) {
    const errorsOf = branches.map((_, i) => within.filter((e) => e.schemaPath.startsWith(`${error.schemaPath}/${i}/`)));
    // A branch whose type or constant the value already fails is not what the sender meant.
    const fitting = errorsOf.filter(
      (errs) => !errs.some((e) => e.instancePath === path && (e.keyword === 'type' || e.keyword === 'const')),
    );
    if (fitting.length === 1) return describeAll(fitting[0]!, defs);
  }
  return [{ path, message: `must be ${branches.map((b) => shapeWords(b)).join(' or ')}, got ${got(error.data)}` }];
}

function describe(error: ErrorObject, defs: Definitions): FieldError {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as JsonSchema;
  switch (error.keyword) {
    case 'required':
      return { path: pointer(path, String(params.missingProperty)), message: 'is required' };
    case 'dependentRequired':
      return {
        path: pointer(path, String(params.missingProperty)),
        message: `is required with ${JSON.stringify(params.property)}`,
      };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const member = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = memberNames(parent, defs);
      return { path: pointer(path, member), message: `is not a known member (known: ${known.join(', ')})` };
    }
    case 'type':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path, message: `must be ${numeric(parent) ?? typeWords(parent.type)}, got ${got(error.data)}` };
    case 'enum':
      return {
        path,
        message: `must be one of ${(params.allowedValues as unknown[]).map(bare).join(', ')}, got ${got(error.data)}`,
      };
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}, got ${got(error.data)}` };
    case 'minLength':
      return {
        path,
        message: params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters`,
      };
    case 'maxLength':
      return { path, message: `must be at most ${params.limit} characters, got ${(error.data as string).length}` };
    case 'pattern':
      if (params.pattern === '\\S') return { path, message: 'must not be blank' };
      return {
        path,
        message: `must ${patternWords(String(params.pattern))}${example(parent)}, got ${got(error.data)}`,
      };
    case 'minItems':
    case 'maxItems':
      return { path, message: `must hold ${count(parent)}, got ${(error.data as unknown[]).length}` };
    case 'discriminator': {
      const tag = String(params.tag);
      const tags = ((parent.oneOf ?? []) as JsonSchema[]).map((b) => tagOf(b, tag, defs)).map(bare);
      return { path: pointer(path, tag), message: `must be one of ${tags.join(', ')}, got ${got(params.tagValue)}` };
    }
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

/** `an integer from 1 to 1000`, for a numeric schema with bounds; undefined for any other. */
function numeric(schema: JsonSchema): string | undefined {
  const types = [schema.type].flat();
  const number = types.includes('integer') ? 'an integer' : types.includes('number') ? 'a number' : undefined;
  const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
  if (!number || (min === undefined && max === undefined)) return undefined;
  const range =
    min !== undefined && max !== undefined
      ? `from ${min} to ${max}`
      : min !== undefined
        ? `of at least ${min}`
        : `of at most ${max}`;
  return `${number} ${range}${types.includes('null') ? ', or null' : ''}`;
}

/** A pattern's meaning is clearest from a value that matches it: the schema's first example, when it gives one. */
const example = (schema: JsonSchema) =>
  Array.isArray(schema.examples) && schema.examples.length > 0 ? `, like ${JSON.stringify(schema.examples[0])}` : '';

/** `^(?:[Yy][Ee][Ss]|[Nn][Oo])$` reads as `be one of YES, NO (in any case)`; any other pattern as itself. */
function patternWords(pattern: string): string {
  const words = /^\^\(\?:(.*)\)\$$/
    .exec(pattern)?.[1]
    ?.split('|')
    .map((word) => (/^(?:\[[A-Z][a-z]\])+$/.test(word) ? word.replace(/\[([A-Z])[a-z]\]/g, '$1') : undefined));
  return words?.every(Boolean) ? `be one of ${words.join(', ')} (in any case)` : `match ${pattern}`;
}

function count(schema: JsonSchema): string {
  const { minItems: min, maxItems: max } = schema as { minItems?: number; maxItems?: number };
  if (min !== undefined && max !== undefined) return `${min} to ${max} items`;
  return min !== undefined ? `at least ${min} item${min === 1 ? '' : 's'}` : `at most ${max} items`;
}

const ARTICLES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeWords(type: unknown): string {
  const words = [type]
    .flat()
    .flatMap((t) => String(t).split(','))
    .map((t) => ARTICLES[t] ?? t);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? 'a valid value');
}

/** A oneOf branch in words: `a non-blank string`, `a non-empty array of strings`, `false`, `a SearchAction`. */
function shapeWords(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(bare).join(', ')}`;
  if (typeof schema.$ref === 'string') return `a ${schema.$ref.split('/').at(-1)}`;
  if (schema.type === 'string' && (schema.pattern === '\\S' || (schema.minLength as number) >= 1))
    return 'a non-blank string';
  if (schema.type === 'array') {
    const items = schema.items as JsonSchema | undefined;
    const of = items?.type ? ` of ${String(items.type)}s` : '';
    return `${(schema.minItems as number) >= 1 ? 'a non-empty array' : 'an array'}${of}`;
  }
  return typeWords(schema.type ?? 'a valid value');
}

/** The members an object schema names, through `$ref` and `allOf`. */
function memberNames(schema: JsonSchema, defs: Definitions, depth = 0): string[] {
  if (depth > 8) return [];
  const names = Object.keys((schema.properties as JsonSchema | undefined) ?? {});
  if (typeof schema.$ref === 'string') {
    const target = defs(schema.$ref.split('/').at(-1)!);
    if (target) names.push(...memberNames(target, defs, depth + 1));
  }
  for (const part of (schema.allOf ?? []) as JsonSchema[]) names.push(...memberNames(part, defs, depth + 1));
  return [...new Set(names)];
}

function tagOf(branch: JsonSchema, tag: string, defs: Definitions): unknown {
  const schema = typeof branch.$ref === 'string' ? (defs(branch.$ref.split('/').at(-1)!) ?? {}) : branch;
  return (schema.properties as Record<string, JsonSchema> | undefined)?.[tag]?.const;
}

function requiredOnly(schema: JsonSchema): string[] | undefined {
  const keys = Object.keys(schema);
  return keys.length === 1 && Array.isArray(schema.required) ? (schema.required as string[]) : undefined;
}

/** What came, briefly: a scalar as JSON (cut at 40 characters), a container by its kind and size. */
function got(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const bare = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function pointer(base: string, member: string): string {
  return `${base}/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
