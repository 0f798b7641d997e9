import { Hono } from 'hono';
import type { AppContext } from '../context.js';
import { json, PROBLEMS, type Operations } from '../openapi-parts.js';

/**
 * `GET /v1/library`: what `toolenv library stats --json` reports (tools, APIs, categories with counts, coverage), read
 * from counts kept on write.
 */
export function libraryRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get('/v1/library', (c) => c.json(ctx.store.stats()));
  return app;
}

/** The operations of libraryRoutes. */
export const libraryOperations: Operations = {
  '/v1/library': {
    get: {
      operationId: 'libraryStats',
      tags: ['Tools'],
      summary:
        'What the library holds: tools, APIs, tools per category, ' +
        'response-schema and example coverage (`toolenv library stats`)',
      responses: {
        '200': json('The counts.', { type: 'object', required: ['tools', 'apis', 'categories'] }),
        '401': PROBLEMS['401'],
      },
    },
  },
};
