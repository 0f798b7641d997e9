import type { Context } from 'hono';
import { callerCredentials, type CallerCredentials } from '../simulator/upstream/credentials.js';
import type { AppContext } from './context.js';

/**
 * The caller's credentials for the real API in a hono request (the auth middleware says where ToolEnv's key came);
 * undefined when the simulator forwards nothing, so that a simulated call builds none.
 */
export function requestCredentials(ctx: AppContext, c: Context): CallerCredentials | undefined {
  if (!ctx.simulator.forwards) return undefined;
  let query: URLSearchParams | undefined;
  return callerCredentials(
    (name) => c.req.header(name),
    (name) => (query ??= new URL(c.req.url).searchParams).get(name) ?? undefined,
    () => ctx.auth && !c.get('keyInHeader'),
  );
}
