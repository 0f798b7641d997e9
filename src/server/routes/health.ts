import { Hono } from 'hono';
import type { AppContext } from '../context.js';
import { serverOpenApi } from '../openapi.js';

/** Liveness, Prometheus metrics, and this server's own OpenAPI document. */
export function healthRoutes(ctx: AppContext, served?: () => ReadonlySet<string>): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok', tools: ctx.tools, seed: ctx.seed }));
  app.get('/metrics', (c) =>
    c.body(`${ctx.simulatorMetrics?.toPrometheus() ?? ''}${ctx.httpMetrics.toPrometheus()}`, 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    }),
  );
  app.get('/openapi.json', (c) =>
    c.json(serverOpenApi(new URL(c.req.url).origin, { auth: ctx.auth, maxBatch: ctx.maxBatch, served: served?.() })),
  );
  return app;
}
