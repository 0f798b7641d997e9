import type { RequestListener } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Hono } from 'hono';
import { appContext, defaultLog, honoApp, type AppOptions } from './app.js';
import { keyCheck } from './auth.js';
import { callListener } from './call-listener.js';
import { DEFAULT_BODY_LIMIT } from './defaults.js';
import { errorResponse } from './error-response.js';
import type { OpenEnv } from './openenv/env.js';
import { problemResponse } from '../http/problem-response.js';

/**
 * The app as node's request listener: the hono app through @hono/node-server, with single tool calls answered in
 * front of it (`callListener`) from the same context, so that both count into one /metrics. `openenv` is the
 * context's, for the WebSocket sessions the server upgrades beside the listener (openenv/upgrade.ts).
 */
export function nodeListener(options: AppOptions): {
  app: Hono;
  listener: RequestListener;
  openenv: OpenEnv | undefined;
} {
  const log = options.log ?? defaultLog;
  const ctx = appContext(options);
  const app = honoApp(ctx, options);
  const hono = getRequestListener(app.fetch, {
    // What hono never sees: a request line or Host header node-server cannot turn into a URL.
    errorHandler: (error) => {
      if (error instanceof RequestError) return problemResponse(400, error.message, { title: 'Invalid request' });
      return errorResponse(error, 'request', log);
    },
  });
  const listener = callListener(
    {
      simulator: ctx.simulator,
      episodes: ctx.episodes,
      metrics: ctx.httpMetrics,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      accepts: options.apiKey === undefined ? undefined : keyCheck(options.apiKey),
      log,
    },
    hono,
  );
  return { app, listener, openenv: ctx.openenv };
}
