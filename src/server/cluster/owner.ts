import type { IncomingMessage } from 'node:http';
import { EPISODE_HEADER } from '../../episodes/header.js';

const PREFIXED_ID = /^w(\d+)-/;
const EPISODE_PATH = /^\/v1\/episodes\/w(\d+)-/;

/**
 * The worker that holds the episode a request is about, read from the worker prefix of its id: the
 * `x-toolenv-episode` header (a call inside an episode), the `/v1/episodes/{id}` path, or for `/mcp` the
 * `Mcp-Session-Id` header (a session lives where it was opened) or the `?episode=` an initialize joins.
 * Undefined when the request names no episode (any worker answers it).
 */
export function ownerOf(request: IncomingMessage): number | undefined {
  const episode = request.headers[EPISODE_HEADER];
  if (typeof episode === 'string') return prefixOwner(episode);
  const url = request.url ?? '';
  if (url.startsWith('/v1/episodes/')) return matchOwner(EPISODE_PATH, url);
  if (url === '/mcp' || url.startsWith('/mcp?')) {
    const session = request.headers['mcp-session-id'];
    if (typeof session === 'string') return prefixOwner(session);
    const query = url.indexOf('?');
    const attach = query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get('episode');
    if (attach !== null) return prefixOwner(attach);
  }
  return undefined;
}

function prefixOwner(id: string): number | undefined {
  return matchOwner(PREFIXED_ID, id);
}

function matchOwner(pattern: RegExp, text: string): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}
