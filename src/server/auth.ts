import { hash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { problemResponse } from '../http/problem-response.js';

/** Paths served without a key, so that load balancers and supervisors can probe the server. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz']);

/**
 * The header that carries the server's key beside `Authorization: Bearer KEY`. On the REST surface an SDK sends
 * the API's own token in Authorization (a GitHub token, a Stripe key); with the server's key here, that token
 * reaches the tool like any header argument.
 */
export const KEY_HEADER = 'x-toolenv-key';

declare module 'hono' {
  interface ContextVariableMap {
    /** The server's key came in x-toolenv-key, so Authorization is the API's own. */
    keyInHeader: boolean;
  }
}

/** Whether a request carries the server's key, in `x-toolenv-key` or as `Authorization: Bearer KEY`. */
export type KeyCheck = (authorization: string | undefined, key: string | undefined) => boolean;

/** Requires the server's key on every path but the open ones; keys are compared in constant time. */
export function bearerAuth(apiKey: string): MiddlewareHandler {
  const accepts = keyCheck(apiKey);
  // Not async: every request passes here, and an async function would add a promise of its own around next().
  return (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const authorization = c.req.header('authorization');
    const key = c.req.header(KEY_HEADER);
    if (key !== undefined && accepts(undefined, key)) {
      c.set('keyInHeader', true);
      return next();
    }
    if (!accepts(authorization, undefined)) {
      const detail =
        authorization === undefined && key === undefined
          ? `this server requires an API key: send ${KEY_HEADER}: KEY or Authorization: Bearer KEY`
          : `no valid API key in the request: send ${KEY_HEADER}: ` +
            'KEY (Authorization then reaches the API) or Authorization: Bearer KEY';
      return Promise.resolve(
        problemResponse(401, detail, { headers: { 'www-authenticate': 'Bearer realm="toolenv"' } }),
      );
    }
    return next();
  };
}

/** Whether a request's Authorization or x-toolenv-key header carries this key. */
export function keyCheck(apiKey: string): KeyCheck {
  const expected = digest(apiKey);
  const matches = (candidate: string) => timingSafeEqual(digest(candidate), expected);
  return (authorization, key) => {
    if (key !== undefined && matches(key.trim())) return true;
    const bearer = authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return bearer !== null && matches(bearer[1]!);
  };
}

/**
 * Equal-length digests, so that timingSafeEqual neither throws nor leaks the key's length (one-shot: cheaper than
 * createHash per request).
 */
function digest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
