/**
 * The REST surface's errors in the API's own shape. `/v1` answers every error as a ToolEnv problem; a request in an
 * API's REST shape comes from code written against that API (a GitHub SDK reads `{message, documentation_url}`, a
 * Stripe SDK `{error: {type, message, code, param}}`), so there the Rule layer's refusals, injected and forced errors
 * and an episode's deleted resources are answered with the operation's declared error response, carrying the same
 * reason. What the spec does not declare a body for stays a problem.
 */
import { STATUS_CODES } from 'node:http';
import { declaredStatuses, errorSchema } from '../library/openapi/errors.js';
import type { ErrorResponses, JsonSchema, Tool } from '../library/tool.js';
import type { ErrorKind, ErrorReason } from './error-body.js';
import { PROBLEM_CONTENT_TYPE, problemType, type Problem } from './problem.js';
import type { Arguments, CallControls, CallResult, InjectedErrorKind } from './types.js';

/** On a vendor-shaped error: the type of the problem it stands for, so a client can still tell which refusal it was. */
export const PROBLEM_HEADER = 'x-toolenv-problem';

/** The title of the REST surface's refusal of a request without the credentials the operation declares. */
export const MISSING_CREDENTIALS = 'Missing credentials';
/** The title of the REST surface's 406, an Accept header that admits none of the operation's media types. */
export const NOT_ACCEPTABLE = 'Not Acceptable';

const INVALID = problemType('Invalid arguments');
const UNAUTHENTICATED = problemType(MISSING_CREDENTIALS);
const UNKNOWN = problemType('Unknown arguments');
const UNACCEPTABLE = problemType(NOT_ACCEPTABLE);

const INJECTED_KINDS: Record<InjectedErrorKind, ErrorKind> = {
  rate_limit: 'rate_limit',
  network: 'unavailable',
  timeout: 'timeout',
  auth: 'auth',
};

let errorBodies: Promise<typeof import('./error-body.js')> | undefined;

/**
 * `result` as the REST surface answers it: an error the Rule layer, injection, `Prefer: code` or world state made
 * is re-shaped when the operation declares a body schema for its status; anything else is returned as it is.
 */
export async function vendorError(
  tool: Tool,
  result: CallResult,
  args: Arguments,
  controls: CallControls,
  seed: number,
): Promise<CallResult> {
  const declared = tool.error_responses;
  if (declared === undefined || !isReshaped(result)) return result;
  const reason = reasonOf(tool, result, controls, declared);
  if (reason === undefined) return result;
  const schema = errorSchema(declared, reason.status);
  // The synthesizer loads on first use, as its responder does.
  const body = isSchema(schema)
    ? (await (errorBodies ??= import('./error-body.js'))).errorBody(tool, schema, reason, args, seed)
    : undefined;
  // No body declared for the status: the problem stays, at the status the operation declares.
  if (body === undefined)
    return reason.status === result.status
      ? result
      : { ...result, status: reason.status, body: { ...(result.body as Problem), status: reason.status } };
  const headers = {
    ...result.headers,
    'content-type': 'application/json',
    [PROBLEM_HEADER]: (result.body as Problem).type,
  };
  return { ...result, status: reason.status, body, headers };
}

/**
 * ToolEnv's own failures, which no API would answer: a responder that failed or had nothing, and with `--upstream` a
 * real API that could not be reached or has no recording. They stay problems, so nobody mistakes them for the API's.
 */
const OWN_FAILURES = new Set(
  [
    'Responder failed',
    'No simulated response',
    'No recording',
    'No upstream',
    'Upstream unreachable',
    'Upstream timeout',
  ].map(problemType),
);

/** Problems of the Rule layer and of world state; ToolEnv's own failures say so as problems. */
function isReshaped(result: CallResult): boolean {
  if (result.status < 400 || result.headers['content-type'] !== PROBLEM_CONTENT_TYPE) return false;
  if (result.source === 'state') return true;
  return result.source === 'rule' && !OWN_FAILURES.has((result.body as Problem).type);
}

function reasonOf(
  tool: Tool,
  result: CallResult,
  controls: CallControls,
  declared: ErrorResponses,
): ErrorReason | undefined {
  const problem = result.body as Problem;
  const message = problem.detail ?? problem.title;
  const reason = (status: number, kind: ErrorKind, code: string, fields: ErrorReason['fields'] = []): ErrorReason => ({
    status,
    kind,
    message,
    title: problem.title,
    code,
    fields,
  });
  if (result.error)
    return reason(result.status, INJECTED_KINDS[result.error], kindCode(INJECTED_KINDS[result.error], result.status));
  if (result.source === 'state') return reason(404, 'not_found', 'resource_missing');
  if (problem.type === UNAUTHENTICATED) return reason(result.status, 'auth', 'unauthorized');
  if (problem.type === UNACCEPTABLE) return reason(406, 'other', kindCode('other', 406));
  if (problem.type === INVALID || problem.type === UNKNOWN) {
    const fields = wrongFields(tool, problem);
    // A path segment that is no valid id names no resource: the API's 404, where it declares a body for one.
    const inPath = fields.length > 0 && fields.every((f) => f.in === 'path');
    if (inPath && isSchema(declared['404'])) return reason(404, 'not_found', 'resource_missing', fields);
    const code =
      problem.type === UNKNOWN
        ? 'parameter_unknown'
        : fields.every((f) => f.missing)
          ? 'parameter_missing'
          : 'parameter_invalid';
    return reason(refusalStatus(declared), 'validation', code, fields);
  }
  // Prefer: code=NNN answered by a problem of that status (its title is the status's reason phrase; Invalid Prefer's is
  // not).
  if (controls.code === result.status && problem.title === STATUS_CODES[result.status]) {
    const kind = statusKind(result.status);
    return reason(result.status, kind, kindCode(kind, result.status));
  }
  return undefined;
}

/** The arguments a refusal names (its `errors[].path`), by wire name, with where they go and their own message. */
function wrongFields(
  tool: Tool,
  problem: Problem,
): (ErrorReason['fields'][number] & { in?: string; missing: boolean })[] {
  const errors = Array.isArray(problem.errors) ? (problem.errors as { path?: unknown; message?: unknown }[]) : [];
  return errors.map((error) => {
    const path = typeof error.path === 'string' ? error.path : '';
    const tokens = path
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const binding = tool.bindings?.[tokens[0] ?? ''];
    // An argument that is the whole body (a form body kept whole): the member inside it is the parameter the API names.
    const name = binding?.in === 'body' && binding.name === '' ? (tokens[1] ?? tokens[0]) : binding?.name || tokens[0];
    return {
      name: name ?? '',
      in: binding?.in,
      message: `${path || '(arguments)'} ${String(error.message)}`,
      missing: error.message === 'is required',
    };
  });
}

/**
 * The status of a refused request: 422 where the operation declares it (GitHub's "Validation failed"), else 400 where
 * it declares that or a `4XX`/`default` response; an operation that lists other 4xx only (404 and 409, say) refuses
 * with the one nearest 400, so every status it answers is one its document declares. Auth, rate-limit and timeout
 * statuses never stand for a bad argument: a client retries a 408 or a 429 as it is, and re-authenticates on a 401.
 */
function refusalStatus(declared: ErrorResponses): number {
  if (Object.hasOwn(declared, '422')) return 422;
  if (['400', '4XX', 'default'].some((key) => Object.hasOwn(declared, key))) return 400;
  return declaredStatuses(declared).find((status) => status > 400 && status < 500 && !NOT_REFUSALS.has(status)) ?? 400;
}

/** Statuses a client reads as something other than a refusal of its arguments. */
export const NOT_REFUSALS: ReadonlySet<number> = new Set([401, 403, 407, 408, 429]);

const isSchema = (schema: JsonSchema | null | undefined): schema is JsonSchema =>
  schema !== undefined && schema !== null;

function statusKind(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'validation';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'payment';
  if (status === 408 || status === 504) return 'timeout';
  return status >= 500 ? 'unavailable' : 'other';
}

function kindCode(kind: ErrorKind, status: number): string {
  switch (kind) {
    case 'validation':
      return 'parameter_invalid';
    case 'not_found':
      return 'resource_missing';
    case 'rate_limit':
      return 'rate_limit';
    case 'auth':
      return 'unauthorized';
    case 'payment':
      return 'card_declined';
    case 'unavailable':
      return 'service_unavailable';
    case 'timeout':
      return 'timeout';
    case 'other':
      return (STATUS_CODES[status] ?? `http_${status}`)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '');
  }
}
