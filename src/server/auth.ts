import { hash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { problemResponse } from './problems.js';

/** Paths served without a key, so that load balancers and supervisors can probe the server. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz']);

/** Requires `Authorization: Bearer KEY` on every path but the open ones; keys are compared in constant time. */
export function bearerAuth(apiKey: string): MiddlewareHandler {
  const accepts = keyCheck(apiKey);
  // Not async: every request passes here, and an async function would add a promise of its own around next().
  return (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const header = c.req.header('authorization');
    if (!accepts(header)) {
      return Promise.resolve(problemResponse(401, header === undefined ? 'this server requires an API key: send Authorization: Bearer KEY' : 'the API key in the Authorization header is not valid', {
        headers: { 'www-authenticate': 'Bearer realm="toolenv"' },
      }));
    }
    return next();
  };
}

/** Whether an Authorization header value carries `Bearer KEY` with this key. */
export function keyCheck(apiKey: string): (header: string | undefined) => boolean {
  const expected = digest(apiKey);
  return (header) => {
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

/** Equal-length digests, so that timingSafeEqual neither throws nor leaks the key's length (one-shot: cheaper than createHash per request). */
function digest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
