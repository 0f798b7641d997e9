import type { Tool } from '../library/tool.js';
import type { Arguments } from './types.js';

/**
 * What the Rule layer does with a top-level argument the tool does not declare. `reject` (the default): a 400
 * that names it — a hallucinated parameter is the commonest tool-call mistake, and a real API either refuses it
 * or silently does something other than what the agent meant, so an agent must learn that it did not count.
 * `ignore`: dropped before the call is answered or cached, and said in a header.
 */
export type UnknownArgumentsMode = 'reject' | 'ignore';

export const UNKNOWN_ARGUMENTS_MODES: readonly UnknownArgumentsMode[] = ['reject', 'ignore'];

/** The header an answer carries when `ignore` dropped arguments: their names, percent-encoded, comma-separated. */
export const IGNORED_HEADER = 'x-toolenv-ignored';

/**
 * The top-level names of `args` the tool does not declare; none when its schema admits any (no properties,
 * additionalProperties, patternProperties).
 */
export function unknownArguments(tool: Tool, args: Arguments): readonly string[] {
  const parameters = tool.parameters;
  const properties: unknown = parameters.properties;
  // Every call passes here: nothing is allocated unless a name is unknown.
  if (!isObject(properties) || isEmpty(properties)) return NONE;
  if (parameters.additionalProperties !== undefined && parameters.additionalProperties !== false) return NONE;
  if (isObject(parameters.patternProperties) && !isEmpty(parameters.patternProperties)) return NONE;
  let unknown: string[] | undefined;
  for (const name in args) if (!Object.hasOwn(properties, name)) (unknown ??= []).push(name);
  return unknown ?? NONE;
}

const NONE: readonly string[] = Object.freeze([]);

function isEmpty(object: Record<string, unknown>): boolean {
  for (const _ in object) return false;
  return true;
}

/**
 * Where an unknown name probably belongs: a member of an object parameter (`body.balance`), or a declared name it
 * misspells.
 */
export function argumentHint(tool: Tool, name: string): string | undefined {
  const properties = tool.parameters.properties ?? {};
  for (const [parent, schema] of Object.entries(properties)) {
    if (isObject(schema) && isObject(schema.properties) && Object.hasOwn(schema.properties, name))
      return `${parent}.${name}`;
  }
  const folded = fold(name);
  return Object.keys(properties).find((declared) => fold(declared) === folded);
}

export function withoutArguments(args: Arguments, names: readonly string[]): Arguments {
  const kept = { ...args };
  for (const name of names) delete kept[name];
  return kept;
}

/** `userName`, `user_name`, `User-Name` and `username` are one name to a hint. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[-_\s.]/g, '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
