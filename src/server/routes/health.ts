import { Hono } from 'hono';
import type { AppContext } from '../context.js';
import { serverOpenApi } from '../openapi.js';
import { json, PROBLEMS, ref, type Operations } from '../openapi-parts.js';

/** Liveness, Prometheus metrics, and this server's own OpenAPI document, of the operations the app mounts. */
export function healthRoutes(ctx: AppContext, operations: readonly Operations[]): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok', tools: ctx.tools, seed: ctx.seed }));
  app.get('/metrics', (c) =>
    c.body(`${ctx.simulatorMetrics?.toPrometheus() ?? ''}${ctx.httpMetrics.toPrometheus()}`, 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    }),
  );
  app.get('/openapi.json', (c) =>
    c.json(serverOpenApi(new URL(c.req.url).origin, operations, { auth: ctx.auth, maxBatch: ctx.maxBatch })),
  );
  return app;
}

/** The operations of healthRoutes; `auth` leaves /healthz open. */
export function healthOperations(auth: boolean): Operations {
  return {
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['Server'],
        summary: 'Liveness, the number of tools served, and the synthesis seed',
        ...(auth ? { security: [] } : {}),
        responses: { '200': json('Up.', ref('Health')), '500': PROBLEMS['500'] },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['Server'],
        summary: 'Prometheus metrics: simulated calls, cache, injected errors, HTTP requests, process',
        responses: {
          '200': {
            description: 'Prometheus text exposition format 0.0.4.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          '401': PROBLEMS['401'],
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['Server'],
        summary: 'This document',
        responses: { '200': json('OpenAPI 3.1 document.', { type: 'object' }), '401': PROBLEMS['401'] },
      },
    },
  };
}
