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

export type ErrorKind =
  | 'validation'
  | 'not_found'
  | 'rate_limit'
  | 'auth'
  | 'payment'
  | 'unavailable'
  | 'timeout'
  | 'other';

const norm = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const keys = (...names: string[]) => new Set(names.map(norm));

const MESSAGE_KEYS = keys(
  'message',
  'msg',
  'detail',
  'details',
  'description',
  'error_description',
  'error_message',
  'error_msg',
  'error_detail',
  'error_details',
  'reason',
  'error',
  'err',
  'status_message',
  'status_text',
  'status_reason',
  'text',
  'user_message',
  'developer_message',
  'localized_message',
);
const STATUS_KEYS = keys('status', 'status_code', 'http_status', 'http_status_code', 'http_code', 'response_code');
const CODE_KEYS = keys('code', 'error_code', 'err_code');
const TYPE_KEYS = keys('type', 'error_type', 'kind');
const DOC_KEYS = keys(
  'documentation_url',
  'doc_url',
  'docs_url',
  'documentation',
  'help_url',
  'more_info',
  'more_info_url',
  'info_url',
);
const RESOURCE_KEYS = keys('resource', 'resource_type', 'resource_name', 'object');
const PARAM_KEYS = keys(
  'param',
  'parameter',
  'field',
  'field_name',
  'argument',
  'property',
  'param_name',
  'parameter_name',
);
/** Arrays that list what was wrong, one item per argument. */
const LIST_KEYS = keys(
  'errors',
  'details',
  'violations',
  'field_errors',
  'issues',
  'validation_errors',
  'messages',
  'invalid_params',
  'error_details',
  'error_messages',
);
/** `errorMessages`, `tppMessages`, `validationErrors`…: lists of what was wrong. */
const isListKey = (name: string) => LIST_KEYS.has(name) || name.endsWith('errors') || name.endsWith('messages');
/** At most this many per-argument items in an `errors[]`. */
const MAX_LISTED = 5;
/** Error bodies nest a little (`{error: {errors: [{…}]}}`); deeper values stay synthesized. */
const MAX_DEPTH = 6;

/** Words an enum value of each kind holds (compared without case and punctuation). */
const KIND_WORDS: Record<ErrorKind, string[]> = {
  validation: [
    'invalid',
    'validation',
    'request',
    'param',
    'argument',
    'bad',
    'malformed',
    'unprocessable',
    'missing',
    'required',
  ],
  not_found: ['notfound', 'missing', 'resource', 'unknown', 'nosuch', 'exist', 'invalid', 'request'],
  rate_limit: ['ratelimit', 'rate', 'limit', 'throttl', 'toomany', 'quota', 'exhausted'],
  auth: [
    'auth',
    'unauthori',
    'unauthenticated',
    'credential',
    'token',
    'apikey',
    'permission',
    'forbidden',
    'login',
    'signature',
  ],
  payment: ['card', 'payment', 'billing', 'charge', 'insufficient', 'funds', 'declined'],
  unavailable: ['unavailable', 'server', 'internal', 'apierror', 'upstream', 'gateway', 'service', 'backend'],
  timeout: ['timeout', 'timedout', 'deadline'],
  other: [],
};

/** A listed value for a kind no value fits: the generic client error or server error. */
const CLIENT_WORDS = ['invalidrequest', 'request', 'client', 'invalid', 'fail', 'error'];
const SERVER_WORDS = ['apierror', 'server', 'internal', 'api', 'error', 'fail'];
/** Flags an error body sets to say it failed (Slack's `ok: false`, `success: false`, `error: true`). */
const SUCCESS_FLAGS = keys('ok', 'success', 'succeeded', 'successful');
const FAILURE_FLAGS = keys('error', 'failed', 'failure', 'has_error', 'is_error');

/** A type-like field's value where the schema lists none, in the vocabulary Stripe's SDKs made common. */
const TYPE_SLUGS: Record<ErrorKind, string> = {
  validation: 'invalid_request_error',
  not_found: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  auth: 'authentication_error',
  payment: 'card_error',
  unavailable: 'api_error',
  timeout: 'api_error',
  other: 'api_error',
};

type Path = (string | number)[];
type Edit = { path: Path; value: unknown };
/**
 * What one fill shares: the reason, where its documentation is, the synthesizer for members the synthesized body left
 * out, the edits so far.
 */
interface Fill {
  reason: ErrorReason;
  docs: Docs;
  synth: (schemas: JsonSchema[]) => unknown;
  edits: Edit[];
}
/**
 * Declared members the synthesized body left out are added down to this depth: all of the top level (a vendor sends
 * its whole error envelope), below it only those that carry the reason, and there optional members that carry none
 * are left out (Stripe's error object declares a dozen members a rate limit never has).
 */
const MAX_ADDED_DEPTH = 3;

/**
 * A body of `schema` for this error: synthesized (deterministic per tool, arguments and seed) and filled with the
 * reason. Every filled field is kept only if the body still satisfies the schema; undefined when even the
 * synthesized body does not (a schema that admits no value), so the caller keeps its own error body.
 */
export function errorBody(tool: Tool, schema: JsonSchema, reason: ErrorReason, args: Arguments, seed: number): unknown {
  const synth = (schemas: JsonSchema[]) =>
    synthesizeChecked(
      {
        ...tool,
        response_schema: schemas.length === 1 ? schemas[0]! : { allOf: schemas },
        response_status: reason.status,
      },
      args,
      seed,
    ).body;
  const base = synth([schema]);
  // An object schema that names no member (`{type: object}`): the synthesizer's made-up members say nothing; a message
  // does.
  const edits: Edit[] = [];
  if (isRecord(base) && declaredNames([schema]).length === 0)
    edits.push({ path: [], value: { message: reason.message } });
  else walk(base, [schema], '', new Set(), [], 0, { reason, docs: docsOf(tool, reason), synth, edits });
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

function walk(
  value: unknown,
  schemas: JsonSchema[],
  key: string,
  siblings: Set<string>,
  path: Path,
  depth: number,
  fill: Fill,
): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    listEdits(value, schemas, key, path, depth, fill);
    return;
  }
  if (isRecord(value)) {
    const members = depth < MAX_ADDED_DEPTH ? declaredNames(schemas) : [];
    const names = new Set([...Object.keys(value), ...members].map(norm));
    const required = depth > 0 ? requiredNames(schemas) : undefined;
    for (const name of Object.keys(value)) {
      // Inside the envelope, what a synthesizer adds beyond the reason is noise no vendor sends (a rate limit's
      // `payment_intent`).
      if (required && !required.has(name) && !carriesReason(norm(name), fill.reason))
        fill.edits.push({ path: [...path, name], value: undefined });
      else walk(value[name], memberSchemas(schemas, name), name, names, [...path, name], depth + 1, fill);
    }
    for (const name of members) {
      if (Object.hasOwn(value, name) || !(depth === 0 || carriesReason(norm(name), fill.reason))) continue;
      const schemasOf = memberSchemas(schemas, name);
      const added = fill.synth(schemasOf);
      if (added === undefined) continue;
      fill.edits.push({ path: [...path, name], value: added });
      walk(added, schemasOf, name, names, [...path, name], depth + 1, fill);
    }
    return;
  }
  const filled =
    depth === 0 && typeof value === 'string'
      ? fill.reason.message
      : leafValue(norm(key), siblings, value, schemas, fill);
  if (filled !== undefined && filled !== value) fill.edits.push({ path, value: filled === OMIT ? undefined : filled });
}

function listEdits(
  list: unknown[],
  schemas: JsonSchema[],
  key: string,
  path: Path,
  depth: number,
  { reason, docs, synth, edits }: Fill,
): void {
  const items = itemSchemas(schemas);
  const name = norm(key);
  const first = list[0];
  if (first === undefined) return;
  if (typeof first === 'string' && (isListKey(name) || MESSAGE_KEYS.has(name))) {
    const messages =
      reason.fields.length > 0 ? reason.fields.slice(0, MAX_LISTED).map((f) => f.message) : [reason.message];
    edits.push({ path, value: messages });
    return;
  }
  if (isRecord(first) && isListKey(name) && reason.fields.length > 0) {
    const filled = reason.fields.slice(0, MAX_LISTED).map((field) => {
      const itemEdits: Edit[] = [];
      walk(first, items, '', new Set(), [], depth + 1, {
        reason: { ...reason, message: field.message, fields: [field] },
        docs,
        synth,
        edits: itemEdits,
      });
      return applyAll(first, itemEdits);
    });
    edits.push({ path, value: filled });
    return;
  }
  for (const [index, item] of list.entries())
    walk(item, items, key, new Set(), [...path, index], depth + 1, { reason, docs, synth, edits });
}

/** Whether a member of this name says what went wrong (a parameter only when an argument is at fault). */
function carriesReason(name: string, reason: ErrorReason): boolean {
  if (PARAM_KEYS.has(name) || isListKey(name) || RESOURCE_KEYS.has(name)) return reason.fields.length > 0;
  return (
    MESSAGE_KEYS.has(name) ||
    STATUS_KEYS.has(name) ||
    CODE_KEYS.has(name) ||
    TYPE_KEYS.has(name) ||
    DOC_KEYS.has(name) ||
    SUCCESS_FLAGS.has(name) ||
    name === 'title'
  );
}

function requiredNames(schemas: JsonSchema[]): Set<string> {
  return new Set(branches(schemas).flatMap((s) => (Array.isArray(s.required) ? (s.required as string[]) : [])));
}

/** A field to leave out: a parameter name on an error about no parameter. */
const OMIT = Symbol('omit');

/** The reason's value for one scalar field, by its name; undefined leaves the synthesized value. */
function leafValue(
  name: string,
  siblings: Set<string>,
  value: unknown,
  schemas: JsonSchema[],
  { reason, docs }: Fill,
): unknown {
  // OAuth's `{error, error_description}` and Slack's `{ok: false, error}`: there `error` is the code.
  const isCode = CODE_KEYS.has(name) || (name === 'error' && (siblings.has('errordescription') || siblings.has('ok')));
  if (typeof value === 'boolean') return SUCCESS_FLAGS.has(name) ? false : FAILURE_FLAGS.has(name) ? true : undefined;
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
  if (PARAM_KEYS.has(name)) return reason.fields[0]?.name ?? OMIT;
  if (DOC_KEYS.has(name)) return `${docs.home}/docs/errors/${reason.code.replace(/_/g, '-')}`;
  if (RESOURCE_KEYS.has(name)) return docs.resource;
  return undefined;
}

/** The listed value that says this error best: the status itself, else the one holding most of the kind's words. */
function fittingValue(values: unknown[], reason: ErrorReason): unknown {
  const exact = values.find((v) => v === reason.status || v === String(reason.status));
  if (exact !== undefined) return exact;
  const words = [
    ...KIND_WORDS[reason.kind],
    ...reason.code.split('_').filter((w) => w.length > 3),
    ...reason.title.split(/\W+/).filter((w) => w.length > 3),
  ].map(norm);
  return bestWords(values, words) ?? bestWords(values, reason.status < 500 ? CLIENT_WORDS : SERVER_WORDS);
}

function bestWords(values: unknown[], words: string[]): unknown {
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

/**
 * Where the API lives (its provider's site) and what the operation's resource is called, for documentation URLs and
 * `resource` fields.
 */
interface Docs {
  home: string;
  resource: string;
}

function docsOf(tool: Tool, reason: ErrorReason): Docs {
  const origin = tool.origin.format === 'openapi' ? tool.origin : undefined;
  const provider = origin ? origin.api_id.split(':')[0]! : 'example.com';
  const noun =
    origin?.path
      .split('/')
      .filter((s) => s !== '' && !s.startsWith('{'))
      .pop() ?? reason.code;
  const singular = noun.replace(/ies$/, 'y').replace(/s$/, '');
  return { home: `https://${provider}`, resource: singular.charAt(0).toUpperCase() + singular.slice(1) };
}

/** A schema and the branches of its allOf/anyOf/oneOf, where the properties of a composed error schema are. */
function branches(schemas: JsonSchema[], depth = 0): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const schema of schemas) {
    if (!isRecord(schema)) continue;
    out.push(schema);
    if (depth < 3)
      for (const keyword of ['allOf', 'anyOf', 'oneOf'])
        if (Array.isArray(schema[keyword])) out.push(...branches(schema[keyword] as JsonSchema[], depth + 1));
  }
  return out;
}

function memberSchemas(schemas: JsonSchema[], name: string): JsonSchema[] {
  const all = branches(schemas);
  const declared = all.flatMap((s) =>
    isRecord(s.properties) && Object.hasOwn(s.properties, name) ? [s.properties[name] as JsonSchema] : [],
  );
  return declared.length > 0
    ? declared
    : all.flatMap((s) => (isRecord(s.additionalProperties) ? [s.additionalProperties as JsonSchema] : []));
}

/** The properties the schema (and its composed branches) declare. */
function declaredNames(schemas: JsonSchema[]): string[] {
  return [...new Set(branches(schemas).flatMap((s) => (isRecord(s.properties) ? Object.keys(s.properties) : [])))];
}

function itemSchemas(schemas: JsonSchema[]): JsonSchema[] {
  return branches(schemas).flatMap((s) => (isRecord(s.items) ? [s.items as JsonSchema] : []));
}

function enumValues(schemas: JsonSchema[]): unknown[] | undefined {
  const values = branches(schemas).flatMap((s) => [
    ...(Array.isArray(s.enum) ? s.enum : []),
    ...(Object.hasOwn(s, 'const') ? [s.const] : []),
  ]);
  return values.length > 0 ? values : undefined;
}

function applyAll(root: unknown, edits: Edit[]): unknown {
  let result = structuredClone(root);
  for (const { path, value } of edits) {
    if (path.length === 0) {
      result = structuredClone(value);
      continue;
    }
    let node: unknown = result;
    for (const step of path.slice(0, -1))
      node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[step] : undefined;
    // A member added by an earlier edit that was left out: the edits inside it have nowhere to go.
    if (typeof node !== 'object' || node === null) continue;
    const last = path[path.length - 1]!;
    if (value === undefined) delete (node as Record<string | number, unknown>)[last];
    else (node as Record<string | number, unknown>)[last] = structuredClone(value);
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
