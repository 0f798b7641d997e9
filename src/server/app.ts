import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { LibraryStore } from '../library/store.js';
import type { Simulator } from '../simulator/types.js';
import { bearerAuth } from './auth.js';
import { bodyLimit } from './body-limit.js';
import type { AppContext } from './context.js';
import { HttpMetrics } from './http-metrics.js';
import { problemResponse } from './problems.js';
import { ResponderBusyError } from '../simulator/queue.js';
import { RestCatalog } from './rest/catalog.js';
import { apiRoutes } from './routes/apis.js';
import { callRoutes, DEFAULT_MAX_BATCH } from './routes/calls.js';
import { healthRoutes } from './routes/health.js';
import { toolRoutes } from './routes/tools.js';
import { searchRoutes } from './routes/search.js';
import { graphRoutes } from './routes/graph.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  store: LibraryStore;
  simulator: Simulator;
  /** The simulator's counters (cache, responders, injected errors), served first on /metrics. */
  metrics?: { toPrometheus(): string };
  /** More routes, mounted after the built-in ones (the model's `POST /v1/chat/completions`). */
  routes?: readonly Hono[];
  /** When set, every route but /healthz needs `Authorization: Bearer KEY`. */
  apiKey?: string;
  /** Largest request body in bytes (default 1 MiB); larger ones are answered 413. */
  bodyLimit?: number;
  /** Most calls in one `POST /v1/calls` (default 100). */
  maxBatch?: number;
  /** Where unexpected errors are logged (default: stderr). */
  log?: (line: string) => void;
}

/** The ToolEnv HTTP app: routes only, each delegating to the library store or the simulator. */
export function createApp(options: AppOptions): Hono {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const ctx: AppContext = {
    store: options.store,
    simulator: options.simulator,
    tools: options.store.count(),
    simulatorMetrics: options.metrics,
    httpMetrics: new HttpMetrics(),
    catalog: new RestCatalog(options.store),
    maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH,
    auth: options.apiKey !== undefined,
  };

  const app = new Hono();
  app.use('*', ctx.httpMetrics.middleware());
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        problemResponse(405, `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`, {
          headers: { allow: methods.join(', ') },
          extra: { allow: methods },
        }),
    }),
  );
  if (options.apiKey !== undefined) app.use('*', bearerAuth(options.apiKey));
  app.use('*', bodyLimit(limit));
  app.route('/', healthRoutes(ctx));
  app.route('/', toolRoutes(ctx));
  app.route('/', callRoutes(ctx));
  app.route('/', apiRoutes(ctx));
  app.route('/', searchRoutes(ctx));
  app.route('/', graphRoutes(ctx));
  for (const routes of options.routes ?? []) app.route('/', routes);

  app.notFound((c) => problemResponse(404, `no route ${c.req.method} ${c.req.path}; GET /openapi.json describes this server`, { title: 'Unknown route' }));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof ResponderBusyError) {
      return problemResponse(503, error.message, { title: 'Simulator busy', headers: { 'retry-after': String(error.retryAfterSeconds) } });
    }
    log(`toolenv: ${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    return problemResponse(500, 'the server failed to answer this request; the error is in its log');
  });
  return app;
}
