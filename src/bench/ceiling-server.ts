import cluster from 'node:cluster';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

/**
 * The ceiling: a bare hono endpoint on the same runtime answering a small JSON body (GET, and POST reading a JSON
 * body), in as many processes sharing the port (argv[2], default 1) as the server it is compared with. Prints its URL
 * once all of them listen.
 */
const workers = Number(process.argv[2] ?? 1);
const announce = (port: number) => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);

if (cluster.isPrimary && workers > 1) {
  let listening = 0;
  for (let i = 0; i < workers; i++) {
    cluster.fork().on('message', (port: number) => {
      if (++listening === workers) announce(port);
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  // POST: the same request shape as a tool call (a JSON body read and parsed), answered as bare.
  const app = new Hono()
    .get('/', (c) => c.json({ status: 'ok' }))
    .post('/', async (c) => {
      JSON.parse(await c.req.text());
      return c.json({ status: 'ok' });
    });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
    cluster.isWorker ? process.send!(info.port) : announce(info.port),
  );
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
