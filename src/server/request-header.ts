import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { EPISODE_HEADER } from '../episodes/header.js';

/**
 * Headers the hot path reads whose value in node's own `incoming.headers` is exactly what `c.req.header` gives:
 * node joins their duplicates with ", " as a Headers object does, or its parser refuses duplicates (content-length).
 * Not for names node keeps only the first of (authorization, content-type…).
 */
export type JoinedHeader = 'content-length' | 'transfer-encoding' | 'prefer' | typeof EPISODE_HEADER;

/**
 * A request header. Under @hono/node-server it is read from the headers node has already parsed: `c.req.header`
 * goes through node-server's Headers wrapper, which checks the name and may copy and scan the raw headers on every
 * read. Elsewhere (`app.request()` in tests) it is `c.req.header`.
 */
export function requestHeader(c: Context, name: JoinedHeader): string | undefined {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  return incoming ? incomingHeader(incoming, name) : c.req.header(name);
}

/**
 * A request header as node parsed it (see JoinedHeader); its types allow a list, which is joined as a Headers object
 * would.
 */
export function incomingHeader(incoming: IncomingMessage, name: JoinedHeader): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
