import { untouchedBodyText } from '../simulator/stored-result.js';
import type { CallResult } from '../simulator/types.js';
import { DEFAULT_RETRY_AFTER } from '../http/problem-response.js';

/** Statuses whose responses carry no body (RFC 9110). */
const BODYLESS = new Set([204, 205, 304]);

/** A simulated call ready for any transport: status, lower-cased headers, and the body text (null for none). */
export interface CallAnswer {
  status: number;
  headers: Record<string, string>;
  text: string | null;
}

/**
 * A simulated call as an HTTP answer: the tool's own status and body, its headers (Retry-After…), and where
 * the answer came from in `x-toolenv-source` (plus `x-toolenv-error` when an error was injected).
 */
export function callAnswer(result: CallResult): CallAnswer {
  const headers: Record<string, string> = {};
  for (const name in result.headers) headers[name.toLowerCase()] = result.headers[name]!;
  headers['x-toolenv-source'] = result.source;
  if (result.error) headers['x-toolenv-error'] = result.error;
  // Every 429 says when to come back, a spec example's included: agents and clients back off by it.
  if (result.status === 429 && headers['retry-after'] === undefined) headers['retry-after'] = DEFAULT_RETRY_AFTER;
  if (BODYLESS.has(result.status)) return { status: result.status, headers, text: null };
  const contentType = headers['content-type'];
  const stored = contentType === undefined ? untouchedBodyText(result) : undefined;
  if (stored === undefined && result.body === undefined) return { status: result.status, headers, text: null };
  let text: string;
  if (stored !== undefined) {
    text = stored;
    headers['content-type'] = 'application/json';
  } else if (typeof result.body === 'string' && contentType !== undefined && !/[/+]json\b/i.test(contentType)) {
    text = result.body;
  } else {
    text = JSON.stringify(result.body);
    if (contentType === undefined) headers['content-type'] = 'application/json';
  }
  return { status: result.status, headers, text };
}

/**
 * A simulated call as a web Response. Headers stay a plain record: @hono/node-server writes such a response straight
 * to the socket, while a `Headers` object would make it build and iterate undici's Headers on every call.
 */
export function callResponse(result: CallResult): Response {
  const { status, headers, text } = callAnswer(result);
  return new Response(text, { status, headers });
}
