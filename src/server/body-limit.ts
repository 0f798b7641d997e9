import type { MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { problemResponse } from './problems.js';

/**
 * 413 for bodies over `limit` bytes. A request that declares its Content-Length is judged by the header alone:
 * hono's own middleware touches `c.req.raw.body`, which makes @hono/node-server build a full web Request and stream
 * for every call — the most expensive part of a cached call. Chunked bodies still go through it, counted as they stream.
 */
export function bodyLimit(limit: number): MiddlewareHandler {
  // The rest of the body is not read: close the connection rather than leave it unusable for the next request.
  const tooLarge = () => problemResponse(413, `the request body is larger than ${limit} bytes`, { extra: { limit }, headers: { connection: 'close' } });
  const streaming = streamingBodyLimit({ maxSize: limit, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(declared) > limit ? tooLarge() : next();
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return streaming(c, next);
  };
}
