import { Hono } from 'hono';
import type { AppContext } from '../context.js';

/** `GET /v1/library`: what `toolenv library stats --json` reports (tools, APIs, categories with counts, coverage), read from counts kept on write. */
export function libraryRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get('/v1/library', (c) => c.json(ctx.store.stats()));
  return app;
}
