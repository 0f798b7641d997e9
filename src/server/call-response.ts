import type { CallResult } from '../simulator/types.js';

/** Statuses whose responses carry no body (RFC 9110). */
const BODYLESS = new Set([204, 205, 304]);

/**
 * A simulated call as an HTTP response: the tool's own status and body, its headers (Retry-After…), and where
 * the answer came from in `x-toolenv-source` (plus `x-toolenv-error` when an error was injected).
 */
export function callResponse(result: CallResult): Response {
  const headers = new Headers(result.headers);
  headers.set('x-toolenv-source', result.source);
  if (result.error) headers.set('x-toolenv-error', result.error);
  if (BODYLESS.has(result.status) || result.body === undefined) return new Response(null, { status: result.status, headers });
  const contentType = headers.get('content-type');
  let text: string;
  if (typeof result.body === 'string' && contentType !== null && !/[/+]json\b/i.test(contentType)) {
    text = result.body;
  } else {
    text = JSON.stringify(result.body);
    if (contentType === null) headers.set('content-type', 'application/json');
  }
  return new Response(text, { status: result.status, headers });
}
