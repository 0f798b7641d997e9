import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { problemResponse } from '../http/problem-response.js';
import { drainBody } from './drain.js';
import { requestHeader } from './request-header.js';

/**
 * 413 for bodies over `limit` bytes. A request that declares its Content-Length is judged by the header alone:
 * hono's own middleware touches `c.req.raw.body`, which makes @hono/node-server build a full web Request and stream
 * for every call — the most expensive part of a cached call. Chunked bodies still go through it, counted as they
 * stream; a request node parsed with neither header has no body. Under node the rest of the body is read and
 * dropped before the answer (drainBody), so that a client still writing it gets the 413, not a reset.
 */
export function bodyLimit(limit: number): MiddlewareHandler {
  const refuse = async (c: Context) => {
    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    return bodyTooLarge(limit, incoming === undefined || (await drainBody(incoming)));
  };
  const streaming = streamingBodyLimit({ maxSize: limit, onError: refuse });
  // Not async: every request passes here, and an async function would add a promise of its own around next().
  return (c, next) => {
    const declared = requestHeader(c, 'content-length');
    const chunked = requestHeader(c, 'transfer-encoding') !== undefined;
    if (declared !== undefined && !chunked) return Number(declared) > limit ? refuse(c) : next();
    // Neither header on a request node parsed: HTTP/1.1 gives it no body (RFC 9112 §6.3), as DELETEs are sent.
    const bodiless = !chunked && (c.env as Partial<HttpBindings> | undefined)?.incoming !== undefined;
    if (bodiless || c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return streaming(c, next);
  };
}

/**
 * The answer to a body over `limit` bytes (the cluster front gives it too, before forwarding such a body). `drained`:
 * the rest of the body was read (drainBody), so the connection stays usable; else it is closed after the answer.
 */
export function bodyTooLarge(limit: number, drained: boolean): Response {
  return problemResponse(413, `the request body is larger than ${limit} bytes`, {
    extra: { limit },
    ...(drained ? {} : { headers: { connection: 'close' } }),
  });
}
