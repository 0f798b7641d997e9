/**
 * The HTTP requests `toolenv conformance` sends an operation: one its parameter schema accepts (made by the
 * synthesizer's value layer, as fidelity's are), and invalid ones a mock must refuse: a required parameter left out,
 * a number given as a word, an integer past int64, the required body left out. A parameter the request sends
 * anyway (fixed by the path key, or a header the client sets) is never the one left out. Where the success answer
 * documents media types, the valid request again with `Accept` naming each, and once naming none of them. Where the
 * operation's security is enforced, every request carries credentials that meet it, and two more must be refused:
 * the valid request without credentials, and with malformed ones.
 */
import { toHttpRequest, type HttpRequestShape } from '../library/http-request.js';
import type { JsonSchema, Tool } from '../library/tool.js';
import { validRequest } from '../fidelity/request.js';
import type { Arguments } from '../simulator/types.js';
import type { Rules } from '../simulator/validate.js';
import { baseType } from '../server/rest/negotiate.js';
import { type OperationCredentials, withCredentials } from './credentials.js';

export type CaseKind =
  | 'valid'
  | 'accept'
  | 'missing-required'
  | 'wrong-type'
  | 'past-int64'
  | 'missing-body'
  | 'missing-credentials'
  | 'wrong-credentials'
  | 'unacceptable';

/** What the served document says of the operation, beyond its tool record. */
export interface CaseContext {
  bodyRequired: boolean;
  /** A sibling operation at the same path is told apart by what it requires. */
  variant: boolean;
  /** The media types documented for the success answer. */
  successTypes: readonly string[];
  /** Under `--security enforce`, where the operation needs credentials. */
  credentials?: OperationCredentials;
}

export interface RequestCase {
  kind: CaseKind;
  method: string;
  /** Path and query after the API's base URL. */
  url: string;
  headers: Record<string, string>;
  /** JSON text, or undefined for no body. */
  body?: string;
}

/** Stands for an integer literal JSON cannot carry through a double: replaced in the body's text. */
const PAST_INT64 = '9223372036854775808';
const MARKER = '\u0000past-int64\u0000';
/** Documented types asked for one by one, per operation. */
const MAX_ACCEPTED_TYPES = 3;
/** A media type no document lists. */
const UNLISTED_TYPE = 'application/x-toolenv-unlisted';
/** Headers an HTTP client sets itself whatever the arguments say: leaving one out of the arguments leaves it sent. */
const CLIENT_HEADERS = new Set([
  'content-type',
  'accept',
  'content-length',
  'host',
  'user-agent',
  'accept-encoding',
  // fetch sends `accept-language: *` and `sec-fetch-mode` of its own.
  'accept-language',
  'sec-fetch-mode',
]);

export function requestCases(tool: Tool, rules: Rules, seed: number, context: CaseContext): RequestCase[] {
  const { bodyRequired, variant, successTypes, credentials } = context;
  const args = validRequest(tool, rules, seed);
  if (args === undefined) return [];
  const cases: RequestCase[] = [];
  const add = (kind: CaseKind, given: Arguments, withBody = true, headers: Record<string, string> = {}) => {
    const request = toHttpRequest(tool, given);
    if (request) Object.assign(request.headers, headers);
    // A required body whose members are all optional: `{}` is that body.
    if (request && withBody && kind !== 'missing-required' && bodyRequired && request.body === undefined)
      request.body = {};
    if (!request) return;
    const made = asCase(kind, request, withBody);
    const set =
      kind === 'missing-credentials'
        ? undefined
        : kind === 'wrong-credentials'
          ? credentials?.wrong
          : credentials?.valid;
    cases.push(credentials ? { ...made, ...withCredentials(made.url, made.headers, set, credentials.names) } : made);
  };
  add('valid', args);
  if (credentials !== undefined) {
    add('missing-credentials', args);
    if (credentials.wrong !== undefined) add('wrong-credentials', args);
  }
  // Each concrete documented type asked for by Accept, and one nobody documents (a 406).
  for (const type of successTypes.filter((t) => !t.includes('*')).slice(0, MAX_ACCEPTED_TYPES))
    add('accept', args, true, { accept: type });
  if (successTypes.length > 0 && !successTypes.some((t) => baseType(t) === '*/*'))
    add('unacceptable', args, true, { accept: UNLISTED_TYPE });
  const bindings = tool.bindings ?? {};
  const fixed = fixedNames(tool);
  const droppable = (tool.parameters.required ?? []).find((name) => {
    const binding = bindings[name];
    return (
      Object.hasOwn(args, name) &&
      binding !== undefined &&
      binding.in !== 'path' &&
      !fixed.has(binding.name.toLowerCase()) &&
      !(binding.in === 'header' && CLIENT_HEADERS.has(binding.name.toLowerCase())) &&
      !sentAsCredential(binding, credentials)
    );
  });
  // Left out where a sibling operation at the same path takes the request without it (variants told apart by what
  // they require), since then the request is a valid one of that sibling.
  if (droppable !== undefined && !variant) {
    const { [droppable]: _dropped, ...rest } = args;
    add('missing-required', rest);
  }
  const numeric = Object.keys(args).find((name) => isNumeric(tool.parameters.properties[name]));
  if (numeric !== undefined) {
    add('wrong-type', { ...args, [numeric]: 'not-a-number' });
    const integer = Object.keys(args).find((name) => isType(tool.parameters.properties[name], 'integer'));
    if (integer !== undefined) add('past-int64', { ...args, [integer]: MARKER });
  }
  if (bodyRequired && Object.values(bindings).some((binding) => binding.in === 'body'))
    add('missing-body', args, false);
  return cases;
}

/** A parameter the credentials send anyway (VTEX's `X-VTEX-API-AppKey` is both): leaving it out leaves it sent. */
function sentAsCredential(
  binding: { in: string; name: string },
  credentials: OperationCredentials | undefined,
): boolean {
  if (credentials === undefined) return false;
  if (binding.in === 'header') return Object.hasOwn(credentials.names.headers, binding.name.toLowerCase());
  return binding.in === 'query' && Object.hasOwn(credentials.names.query, binding.name);
}

/** Names the path key itself sends (`/#X-Amz-Target=…`, `/?Action=…`): left out of the arguments, still sent. */
function fixedNames(tool: Tool): Set<string> {
  if (tool.origin.format !== 'openapi') return new Set();
  const cut = tool.origin.path.search(/[#?]/);
  if (cut === -1) return new Set();
  return new Set([...new URLSearchParams(tool.origin.path.slice(cut + 1)).keys()].map((name) => name.toLowerCase()));
}

function asCase(kind: CaseKind, request: HttpRequestShape, withBody: boolean): RequestCase {
  const url = request.url.replace(encodeURIComponent(MARKER), PAST_INT64);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, value.replace(MARKER, PAST_INT64)]),
  );
  // A GET or HEAD carries no body over HTTP (a document that declares one for it cannot be followed).
  const bodiless = !withBody || request.body === undefined || /^(get|head)$/i.test(request.method);
  if (bodiless) return { kind, method: request.method, url, headers };
  const body = JSON.stringify(request.body).replace(JSON.stringify(MARKER), PAST_INT64);
  return { kind, method: request.method, url, headers: { ...headers, 'content-type': 'application/json' }, body };
}

function isNumeric(schema: JsonSchema | undefined): boolean {
  return isType(schema, 'integer') || isType(schema, 'number') || isType(schema, 'boolean');
}

/** A schema of this type only (not also a string, which would take a word). */
function isType(schema: JsonSchema | undefined, type: string): boolean {
  if (typeof schema !== 'object') return false;
  return (
    schema.type === type ||
    (Array.isArray(schema.type) && schema.type.includes(type) && !schema.type.includes('string'))
  );
}
