import { Hono, type Context } from 'hono';
import { STUDIO_CSP, STUDIO_PAGE, studioAsset } from '../studio-assets.js';
import { problemResponse } from '../../http/problem-response.js';
import { PROBLEMS, type Operations } from '../openapi-parts.js';

/**
 * The studio's page and assets (`GET /studio`, `GET /studio/assets/{file}`). They hold no data, so they are served
 * without the API key: a browser cannot send a Bearer header when it opens a page, and the key then never sits in a
 * URL. Every view reads the API with the key the user gives the page (kept in sessionStorage).
 */
export function studioRoutes(): Hono {
  const app = new Hono();
  const page = (c: Context) =>
    c.html(STUDIO_PAGE, 200, {
      'cache-control': 'no-cache',
      'content-security-policy': STUDIO_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
  app.get('/studio', (c) => page(c));
  app.get('/studio/', (c) => page(c));
  app.get('/studio/assets/:file', (c) => {
    const asset = studioAsset(c.req.param('file'));
    if (!asset)
      return problemResponse(404, `no studio asset ${JSON.stringify(c.req.param('file'))}`, { title: 'Unknown asset' });
    const headers = {
      'content-type': asset.type,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    };
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? ''))
      return c.body(asset.gzip, 200, { ...headers, 'content-encoding': 'gzip' });
    return c.body(asset.body, 200, headers);
  });
  return app;
}

/** The operations of studioRoutes; with `auth` they say the page and assets need no key. */
export function studioOperations(auth: boolean): Operations {
  const studioPage = (operationId: string) => ({
    get: {
      operationId,
      tags: ['Studio'],
      summary: 'The studio: the library, episodes, runs and server metrics in the browser',
      description:
        'The page and its assets hold no data and are served without the key; the API calls it makes send the key ' +
        'the user enters (kept in sessionStorage).',
      ...(auth ? { security: [] } : {}),
      responses: { '200': { description: 'The HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  });
  return {
    '/studio': studioPage('studio'),
    '/studio/': studioPage('studioSlash'),
    '/studio/assets/{file}': {
      get: {
        operationId: 'studioAsset',
        tags: ['Studio'],
        summary: "The studio's scripts and stylesheets (its own, and uPlot's from npm)",
        ...(auth ? { security: [] } : {}),
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The file.' }, '404': PROBLEMS['404'] },
      },
    },
  };
}
