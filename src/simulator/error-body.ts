/**
 * An error body in an API's declared shape, carrying a ToolEnv reason: the synthesizer fills the declared schema
 * plausibly, then the fields that say what went wrong get the reason — message-like fields its text, status and
 * code fields the status or a code, type-like enums the fitting value, `errors[]` one item per wrong argument.
 */
import type { JsonSchema, Tool } from '../library/tool.js';
import { satisfies } from './synth/check.js';
import { synthesizeChecked } from './synth/index.js';
import type { Arguments } from './types.js';

/** What went wrong, in the words an error body needs. */
export interface ErrorReason {
  status: number;
  kind: ErrorKind;
  /** The Rule layer's reason: a problem's `detail`. */
  message: string;
  /** A problem's `title`. */
  title: string;
  /** A snake_case code in the style vendors use (`parameter_missing`, `resource_missing`). */
  code: string;
  /** The wrong arguments, by wire name, each with its own message. */
  fields: { name: string; message: string }[];
}

export type ErrorKind = 'validation' | 'not_found' | 'rate_limit' | 'auth' | 'unavailable' | 'timeout' | 'other';

const norm = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const keys = (...names: string[]) => new Set(names.map(norm));

const MESSAGE_KEYS = keys('message', 'msg', 'detail', 'details', 'description', 'error_description', 'error_message', 'error_msg', 'error_detail', 'error_details', 'reason', 'error', 'err', 'status_message', 'status_text', 'user_message', 'developer_message', 'localized_message');
const STATUS_KEYS = keys('status', 'status_code', 'http_status', 'http_status_code', 'http_code', 'response_code');
const CODE_KEYS = keys('code', 'error_code', 'err_code');
const TYPE_KEYS = keys('type', 'error_type', 'kind');
const PARAM_KEYS = keys('param', 'parameter', 'field', 'field_name', 'argument', 'property', 'param_name', 'parameter_name');
/** Arrays that list what was wrong, one item per argument. */
const LIST_KEYS = keys('errors', 'details', 'violations', 'field_errors', 'issues', 'validation_errors', 'messages', 'invalid_params', 'error_details');
/** At most this many per-argument items in an `errors[]`. */
const MAX_LISTED = 5;
/** Error bodies nest a little (`{error: {errors: [{…}]}}`); deeper values stay synthesized. */
const MAX_DEPTH = 6;

/** Words an enum value of each kind holds (compared without case and punctuation). */
const KIND_WORDS: Record<ErrorKind, string[]> = {
  validation: ['invalid', 'validation', 'request', 'param', 'argument', 'bad', 'malformed', 'unprocessable', 'missing', 'required'],
  not_found: ['notfound', 'missing', 'resource', 'unknown', 'nosuch', 'exist', 'invalid', 'request'],
  rate_limit: ['ratelimit', 'rate', 'limit', 'throttl', 'toomany', 'quota', 'exhausted'],
  auth: ['auth', 'unauthori', 'unauthenticated', 'credential', 'token', 'apikey', 'permission', 'forbidden', 'login', 'signature'],
  unavailable: ['unavailable', 'server', 'internal', 'apierror', 'upstream', 'gateway', 'service', 'backend'],
  timeout: ['timeout', 'timedout', 'deadline'],
  other: [],
};

/** A type-like field's value where the schema lists none, in the vocabulary Stripe's SDKs made common. */
const TYPE_SLUGS: Record<ErrorKind, string> = {
  validation: 'invalid_request_error',
  not_found: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  auth: 'authentication_error',
  unavailable: 'api_error',
  timeout: 'api_error',
  other: 'api_error',
};

type Path = (string | number)[];
type Edit = { path: Path; value: unknown };

/**
 * A body of `schema` for this error: synthesized (deterministic per tool, arguments and seed) and filled with the
 * reason. Every filled field is kept only if the body still satisfies the schema; undefined when even the
 * synthesized body does not (a schema that admits no value), so the caller keeps its own error body.
 */
export function errorBody(tool: Tool, schema: JsonSchema, reason: ErrorReason, args: Arguments, seed: number): unknown {
  const base = synthesizeChecked({ ...tool, response_schema: schema, response_status: reason.status }, args, seed).body;
  const edits: Edit[] = [];
  walk(base, [schema], '', new Set(), [], reason, 0, edits);
  const filled = applyAll(base, edits);
  const verdict = satisfies(schema, filled);
  if (verdict !== false) return filled;
  if (satisfies(schema, base) === false) return undefined;
  // Some filled value breaks the schema (a maxLength on `message`, a pattern on `code`): keep the others.
  let body = base;
  for (const edit of edits) {
    const next = applyAll(body, [edit]);
    if (satisfies(schema, next) === true) body = next;
  }
  return body;
}

function walk(value: unknown, schemas: JsonSchema[], key: string, siblings: Set<string>, path: Path, reason: ErrorReason, depth: number, edits: Edit[]): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    listEdits(value, schemas, key, path, reason, depth, edits);
    return;
  }
  if (isRecord(value)) {
    const names = new Set(Object.keys(value).map(norm));
    for (const name of Object.keys(value)) walk(value[name], memberSchemas(schemas, name), name, names, [...path, name], reason, depth + 1, edits);
    return;
  }
  const filled = depth === 0 && typeof value === 'string' ? reason.message : leafValue(norm(key), siblings, value, schemas, reason);
  if (filled !== undefined && filled !== value) edits.push({ path, value: filled });
}

function listEdits(list: unknown[], schemas: JsonSchema[], key: string, path: Path, reason: ErrorReason, depth: number, edits: Edit[]): void {
  const items = itemSchemas(schemas);
  const name = norm(key);
  const first = list[0];
  if (first === undefined) return;
  if (typeof first === 'string' && (LIST_KEYS.has(name) || MESSAGE_KEYS.has(name))) {
    const messages = reason.fields.length > 0 ? reason.fields.slice(0, MAX_LISTED).map((f) => f.message) : [reason.message];
    edits.push({ path, value: messages });
    return;
  }
  if (isRecord(first) && LIST_KEYS.has(name) && reason.fields.length > 0) {
    const filled = reason.fields.slice(0, MAX_LISTED).map((field) => {
      const itemEdits: Edit[] = [];
      walk(first, items, '', new Set(), [], { ...reason, message: field.message, fields: [field] }, depth + 1, itemEdits);
      return applyAll(first, itemEdits);
    });
    edits.push({ path, value: filled });
    return;
  }
  for (const [index, item] of list.entries()) walk(item, items, key, new Set(), [...path, index], reason, depth + 1, edits);
}

/** The reason's value for one scalar field, by its name; undefined leaves the synthesized value. */
function leafValue(name: string, siblings: Set<string>, value: unknown, schemas: JsonSchema[], reason: ErrorReason): unknown {
  // OAuth's `{error, error_description}`: there `error` is the code and the description the message.
  const isCode = CODE_KEYS.has(name) || (name === 'error' && siblings.has('errordescription'));
  const described = STATUS_KEYS.has(name) || isCode || TYPE_KEYS.has(name);
  const allowed = described ? enumValues(schemas) : undefined;
  if (allowed) return fittingValue(allowed, reason);
  if (typeof value === 'number') return STATUS_KEYS.has(name) || isCode ? reason.status : undefined;
  if (typeof value !== 'string') return undefined;
  if (isCode) return reason.code;
  if (MESSAGE_KEYS.has(name)) return reason.message;
  if (name === 'title') return reason.title;
  if (STATUS_KEYS.has(name)) return String(reason.status);
  if (TYPE_KEYS.has(name)) return TYPE_SLUGS[reason.kind];
  if (PARAM_KEYS.has(name)) return reason.fields[0]?.name;
  return undefined;
}

/** The listed value that says this error best: the status itself, else the one holding most of the kind's words. */
function fittingValue(values: unknown[], reason: ErrorReason): unknown {
  const exact = values.find((v) => v === reason.status || v === String(reason.status));
  if (exact !== undefined) return exact;
  const words = [...KIND_WORDS[reason.kind], ...reason.code.split('_').filter((w) => w.length > 3), ...reason.title.split(/\W+/).filter((w) => w.length > 3)].map(norm);
  let best: unknown;
  let bestScore = 0;
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const text = norm(value);
    const score = words.filter((w) => text.includes(w)).length;
    if (score > bestScore) [best, bestScore] = [value, score];
  }
  return best;
}

/** A schema and the branches of its allOf/anyOf/oneOf, where the properties of a composed error schema are. */
function branches(schemas: JsonSchema[], depth = 0): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const schema of schemas) {
    if (!isRecord(schema)) continue;
    out.push(schema);
    if (depth < 3) for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[keyword])) out.push(...branches(schema[keyword] as JsonSchema[], depth + 1));
  }
  return out;
}

function memberSchemas(schemas: JsonSchema[], name: string): JsonSchema[] {
  const all = branches(schemas);
  const declared = all.flatMap((s) => (isRecord(s.properties) && Object.hasOwn(s.properties, name) ? [s.properties[name] as JsonSchema] : []));
  return declared.length > 0 ? declared : all.flatMap((s) => (isRecord(s.additionalProperties) ? [s.additionalProperties as JsonSchema] : []));
}

function itemSchemas(schemas: JsonSchema[]): JsonSchema[] {
  return branches(schemas).flatMap((s) => (isRecord(s.items) ? [s.items as JsonSchema] : []));
}

function enumValues(schemas: JsonSchema[]): unknown[] | undefined {
  const values = branches(schemas).flatMap((s) => [...(Array.isArray(s.enum) ? s.enum : []), ...(Object.hasOwn(s, 'const') ? [s.const] : [])]);
  return values.length > 0 ? values : undefined;
}

function applyAll(root: unknown, edits: Edit[]): unknown {
  let result = structuredClone(root);
  for (const { path, value } of edits) {
    if (path.length === 0) {
      result = structuredClone(value);
      continue;
    }
    let node = result as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
    node[path[path.length - 1]!] = structuredClone(value);
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
