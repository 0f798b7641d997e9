import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Arguments } from './types.js';

/**
 * How the Rule layer treats a value of the wrong JSON type. `strict`: the schema is the contract, the call is
 * refused. `lax`: what pydantic-style servers accept is accepted and said — numeric and boolean strings, a
 * scalar where an array is asked and a one-element array where a scalar is.
 */
export type CoercionMode = 'strict' | 'lax';

export const COERCION_MODES: readonly CoercionMode[] = ['strict', 'lax'];

/** One value the lax Rule layer changed: where (a JSON Pointer into the arguments), from which JSON type to which. */
export interface Coercion {
  path: string;
  from: string;
  to: string;
}

/**
 * The header a coerced call's answer carries: `/latitude string->number, /tags string->array` (paths percent-encoded
 * past ASCII).
 */
export const COERCED_HEADER = 'x-toolenv-coerced';

/** Enough for a value nested in one-element arrays to reach its type, never unbounded. */
const MAX_ROUNDS = 6;

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  on: true,
  off: false,
  '1': true,
  '0': false,
};

/**
 * Arguments that fail `validate` only by type errors lax coercion can mend, mended (a copy; `args` is untouched),
 * with what changed; undefined when they still fail. Runs only on calls that failed validation.
 */
export function laxArguments(
  args: Arguments,
  errors: readonly ErrorObject[],
  validate: ValidateFunction,
): { args: Arguments; coerced: Coercion[] } | undefined {
  let current = errors;
  let mended: Arguments | undefined;
  const coerced = new Map<string, Coercion>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const fixes = new Map<string, unknown>();
    for (const error of current) {
      if (error.keyword !== 'type' || error.instancePath === '' || fixes.has(error.instancePath)) continue;
      mended ??= structuredClone(args);
      const value = valueAt(mended, error.instancePath);
      const fixed = coerce(value, expectedTypes(error));
      if (fixed !== NOT_COERCED) fixes.set(error.instancePath, fixed);
    }
    if (fixes.size === 0 || mended === undefined) return undefined;
    for (const [path, value] of fixes) {
      const before = valueAt(mended, path);
      setAt(mended, path, value);
      const first = coerced.get(path);
      coerced.set(path, { path, from: first?.from ?? jsonType(before), to: jsonType(value) });
    }
    if (validate(mended)) return { args: mended, coerced: [...coerced.values()] };
    current = validate.errors ?? [];
  }
  return undefined;
}

/** The coercions as one header value. */
export function coercedHeader(coerced: readonly Coercion[]): string {
  return coerced.map((c) => `${encodeURI(c.path)} ${c.from}->${c.to}`).join(', ');
}

const NOT_COERCED = Symbol('not coerced');

function coerce(value: unknown, types: ReadonlySet<string>): unknown {
  if (types.has('array') && !Array.isArray(value)) return [value];
  if (Array.isArray(value)) return value.length === 1 && !types.has('array') ? value[0] : NOT_COERCED;
  if (typeof value === 'string') {
    const text = value.trim();
    if (types.has('integer') && /^[-+]?\d+$/.test(text) && Number.isFinite(Number(text))) return Number(text);
    if (types.has('number') && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
    if (types.has('boolean') && Object.hasOwn(BOOLEAN_TEXT, text.toLowerCase()))
      return BOOLEAN_TEXT[text.toLowerCase()];
    return NOT_COERCED;
  }
  if (typeof value === 'number' && types.has('boolean') && (value === 0 || value === 1)) return value === 1;
  return NOT_COERCED;
}

function expectedTypes(error: ErrorObject): ReadonlySet<string> {
  const type = (error.params as { type?: unknown }).type;
  return new Set(Array.isArray(type) ? type.map(String) : String(type).split(','));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function tokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of tokens(pointer)) node = (node as Record<string, unknown>)[token];
  return node;
}

function setAt(root: unknown, pointer: string, value: unknown): void {
  const path = tokens(pointer);
  const last = path.pop()!;
  const parent = path.reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], root);
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else (parent as Record<string, unknown>)[last] = value;
}
