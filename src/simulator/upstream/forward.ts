import { toHttpRequest } from '../../library/http-request.js';
import type { Tool } from '../../library/tool.js';
import type { Arguments } from '../types.js';

/** A real API's answer: its status, its body (parsed JSON, else text), the headers passed on, and how long it took. */
export interface RealAnswer {
  status: number;
  body: unknown;
  /** `content-type` when the body is not JSON (a text body is passed on as text), and `retry-after` when sent. */
  headers: Record<string, string>;
  ms: number;
}

/** The real API did not answer: it could not be reached, or not within the timeout. */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: 'unreachable' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP request a call is forwarded as. */
export interface ForwardRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | FormData;
}

/**
 * The real request of a call: `toHttpRequest` (the tool's bindings, the inverse of the REST surface's parsing) on
 * `base`, the forwarded credentials added, the body encoded as the operation's request content type says (a form
 * stays a form; JSON otherwise).
 */
export function forwardRequest(
  tool: Tool,
  args: Arguments,
  base: string,
  contentType: string | undefined,
  credentials: { headers: Record<string, string>; query: [string, string][] },
): ForwardRequest {
  const shape = toHttpRequest(tool, args)!;
  const url = new URL(base.replace(/\/+$/, '') + shape.url);
  for (const [name, value] of credentials.query) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5' };
  for (const [name, value] of Object.entries(shape.headers)) headers[name.toLowerCase()] = value;
  Object.assign(headers, credentials.headers);
  const request: ForwardRequest = { method: shape.method, url: url.href, headers };
  if (shape.body === undefined) return request;
  if (contentType === 'application/x-www-form-urlencoded' && isObject(shape.body)) {
    request.body = new URLSearchParams(formFields(shape.body));
  } else if (contentType === 'multipart/form-data' && isObject(shape.body)) {
    const form = new FormData();
    for (const [name, value] of formFields(shape.body)) form.append(name, value);
    request.body = form;
  } else if (typeof shape.body === 'string' && contentType !== undefined && !/json/i.test(contentType)) {
    request.body = shape.body;
    headers['content-type'] = contentType;
  } else {
    request.body = JSON.stringify(shape.body);
    headers['content-type'] = contentType !== undefined && /json/i.test(contentType) ? contentType : 'application/json';
  }
  return request;
}

/** Sends a request and reads the whole answer; throws UpstreamFailure when there is none within `timeoutMs`. */
export async function send(request: ForwardRequest, timeoutMs: number): Promise<RealAnswer> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal,
      redirect: 'follow',
    });
    text = await response.text();
  } catch (error) {
    if (signal.aborted)
      throw new UpstreamFailure('timeout', `${request.method} ${request.url} did not answer within ${timeoutMs} ms`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new UpstreamFailure(
      'unreachable',
      `${request.method} ${request.url} failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
  const ms = performance.now() - started;
  const headers: Record<string, string> = {};
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null) headers['retry-after'] = retryAfter;
  const contentType = response.headers.get('content-type') ?? undefined;
  if (text === '') return { status: response.status, body: undefined, headers, ms };
  if (contentType === undefined || /json/i.test(contentType)) {
    try {
      return { status: response.status, body: JSON.parse(text), headers, ms };
    } catch {
      // Declared JSON that is not: kept as the text it is.
    }
  }
  headers['content-type'] = contentType ?? 'text/plain';
  return { status: response.status, body: text, headers, ms };
}

/** A form's fields: arrays repeat their name (OpenAPI's `form` style, explode), other values as text. */
function formFields(body: Record<string, unknown>): [string, string][] {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  return Object.entries(body).flatMap(([name, value]) =>
    Array.isArray(value) ? value.map((item): [string, string] => [name, text(item)]) : [[name, text(value)]],
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
