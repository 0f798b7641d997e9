import { Hono } from 'hono';
import { serve } from '@hono/node-server';

/** The ceiling: a bare hono endpoint on the same runtime, answering a small JSON body. Prints its URL when listening. */
const app = new Hono().get('/', (c) => c.json({ status: 'ok' }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
