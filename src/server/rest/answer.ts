/**
 * How the REST surface answers once the pipeline has: in a media type the operation documents for the status, an
 * undeclared error status said and counted; and the refusals it makes itself (a missing required body, a 406).
 */
import type { Tool } from '../../library/tool.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../../simulator/problem.js';
import type { CallResult } from '../../simulator/types.js';
import { NOT_ACCEPTABLE, PROBLEM_HEADER } from '../../simulator/vendor-error.js';
import { callAnswer } from '../call-response.js';
import type { HttpMetrics } from '../http-metrics.js';
import { baseType, concrete, defaultType, negotiate } from './negotiate.js';
import { documentedTypes, type OperationFacts } from './operation-facts.js';
import { renderAnswer } from './render.js';

/** On an error whose status the operation does not declare (it declares no 4xx at all, say): that status. */
export const UNDECLARED_STATUS_HEADER = 'x-toolenv-undeclared-status';
/** An Accept header asking for ToolEnv's own problems rather than the API's error shape. */
export const PROBLEM_ACCEPTED = /\bapplication\/problem\+json\b/i;

/** An operation's facts, and the document its XML schemas' $refs resolve in. */
export interface DescribedOperation {
  facts: OperationFacts;
  document: unknown;
}

/**
 * The answer in the media type its operation documents for its status (the request's Accept choosing among them), and
 * an error status the operation does not declare marked `x-toolenv-undeclared-status` and counted.
 */
export function restAnswer(
  described: DescribedOperation,
  result: CallResult,
  accept: string | undefined,
  metrics: HttpMetrics,
): Response {
  const { facts, document } = described;
  const documented = documentedTypes(facts, result.status);
  const call = callAnswer(result);
  if (result.status >= 400 && documented === undefined) {
    call.headers[UNDECLARED_STATUS_HEADER] = String(result.status);
    metrics.undeclaredStatus(result.status);
  }
  const types = documented?.types ?? [];
  const current = call.headers['content-type'] ?? '';
  // A client asking for problems gets them; a body the document gives no media type keeps JSON; ToolEnv's own failures
  // (a responder's, an unreachable upstream's) stay problems, so nobody takes them for the API's.
  if (
    types.length === 0 ||
    call.text === null ||
    (result.status >= 400 && PROBLEM_ACCEPTED.test(accept ?? '')) ||
    (result.status >= 500 && baseType(current) === PROBLEM_CONTENT_TYPE)
  )
    return new Response(call.text, { status: call.status, headers: call.headers });
  const error = result.status >= 400;
  // An error keeps the type it is written in where that is documented; a success answer goes by Accept.
  const kept = types.find((type) => baseType(type) === baseType(current));
  const wanted = error ? (kept ?? defaultType(types)) : (negotiate(types, accept) ?? defaultType(types));
  if (baseType(wanted) === baseType(current))
    return new Response(call.text, { status: call.status, headers: call.headers });
  if (error && baseType(current) === PROBLEM_CONTENT_TYPE) call.headers[PROBLEM_HEADER] ??= problemTypeOf(result) ?? '';
  const schema = facts.schemas.get(documented!.key)?.get(types.find((t) => concrete(t) === wanted) ?? wanted);
  return renderAnswer(call, { type: wanted, schema, document });
}

/** The Rule layer's refusal of a request without the body its operation requires. */
export function missingBody(tool: Tool): CallResult {
  const whole = Object.entries(tool.bindings ?? {}).find(([, b]) => b.in === 'body' && b.name === '')?.[0];
  const errors = [
    whole === undefined ? { path: '', message: 'needs a request body' } : { path: `/${whole}`, message: 'is required' },
  ];
  const body = problem(400, 'Invalid arguments', `${tool.id} requires a request body`, { tool: tool.id, errors });
  return { status: 400, body, source: 'rule', headers: { 'content-type': PROBLEM_CONTENT_TYPE } };
}

/** 406: the Accept header admits none of the media types the operation documents for its answer. */
export function notAcceptable(types: string[], accept: string | undefined): CallResult {
  const listed = types.join(', ');
  const detail = `Accept ${JSON.stringify(accept)} admits none of the media types this operation answers in: ${listed}`;
  const body = problem(406, NOT_ACCEPTABLE, detail, { available: types });
  return { status: 406, body, source: 'rule', headers: { 'content-type': PROBLEM_CONTENT_TYPE } };
}

function problemTypeOf(result: CallResult): string | undefined {
  const body = result.body as { type?: unknown } | undefined;
  return typeof body?.type === 'string' ? body.type : undefined;
}
