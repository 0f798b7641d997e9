import type { Context } from 'hono';
import { callerCredentials, type CallerCredentials } from '../upstream/credentials.js';
import type { AppContext } from './context.js';

/** The caller's credentials for the real API in a hono request (the auth middleware says where ToolEnv's key came). */
export function requestCredentials(ctx: AppContext, c: Context): CallerCredentials {
  let query: URLSearchParams | undefined;
  return callerCredentials(
    (name) => c.req.header(name),
    (name) => (query ??= new URL(c.req.url).searchParams).get(name) ?? undefined,
    () => ctx.auth && !c.get('keyInHeader'),
  );
}
