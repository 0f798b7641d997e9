import type { MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { problemResponse } from './problems.js';
import { requestHeader } from './request-header.js';

/**
 * 413 for bodies over `limit` bytes. A request that declares its Content-Length is judged by the header alone:
 * hono's own middleware touches `c.req.raw.body`, which makes @hono/node-server build a full web Request and stream
 * for every call — the most expensive part of a cached call. Chunked bodies still go through it, counted as they stream.
 */
export function bodyLimit(limit: number): MiddlewareHandler {
  // The rest of the body is not read: close the connection rather than leave it unusable for the next request.
  const tooLarge = () => problemResponse(413, `the request body is larger than ${limit} bytes`, { extra: { limit }, headers: { connection: 'close' } });
  const streaming = streamingBodyLimit({ maxSize: limit, onError: tooLarge });
  // Not async: every request passes here, and an async function would add a promise of its own around next().
  return (c, next) => {
    const declared = requestHeader(c, 'content-length');
    if (declared !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
      return Number(declared) > limit ? Promise.resolve(tooLarge()) : next();
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return streaming(c, next);
  };
}
