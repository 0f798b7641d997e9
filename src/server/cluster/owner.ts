import type { IncomingMessage } from 'node:http';
import { getPath, tryDecodeURIComponent } from 'hono/utils/url';
import { EPISODE_HEADER } from '../../episodes/header.js';

const PREFIXED_ID = /^w(\d+)-/;
const EPISODES = '/v1/episodes/';
const GROUPS = '/v1/groups/';
const TOOL_CALL = /^\/v1\/tools\/[^/]+\/call$/;
/**
 * OpenEnv's HTTP routes that name an episode, by `?episode_id=` (a step may name it in its body only, which no worker
 * reads here).
 */
const OPENENV_EPISODE_ROUTES = new Set(['/openenv/step', '/openenv/state']);

/**
 * The path the app routes a request by: as @hono/node-server builds the request's URL (dot segments resolved) and
 * hono decodes it (`/v1/%65pisodes` is `/v1/episodes`). A path with no escape, fragment or dot segment is that
 * already (every request passes here: it is kept cheap). Undefined for a target no URL is made of (the app answers
 * it 400).
 */
export function routedPath(target: string): string | undefined {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  if (path.startsWith('/') && !path.includes('%') && !path.includes('#') && !path.includes('/.')) return path;
  try {
    return getPath(new Request(new URL(target.startsWith('/') ? `http://localhost${target}` : target)));
  } catch {
    return undefined;
  }
}

/**
 * The worker that holds the episode a request is about, read from the worker prefix of its id where the app reads
 * that id on the route the request takes: the `/v1/episodes/{id}` and `/v1/groups/{id}` paths (a group's episodes
 * live with it); for `/mcp` the `Mcp-Session-Id` header (a session lives where it was opened), else the episode an
 * initialize joins or a stateless request records into (`?episode=`, else `x-toolenv-episode`); the `?episode_id=` of
 * `/openenv/step` and `/openenv/state`; the `x-toolenv-episode` header of a call inside an episode (`POST
 * /v1/tools/{id}/call`, `POST /v1/calls`, the REST surface under `/apis/`), and nowhere else. Undefined when the
 * request names no episode (any worker answers it).
 */
export function ownerOf(request: IncomingMessage, path = routedPath(request.url ?? '/')): number | undefined {
  if (path === undefined) return undefined;
  for (const prefix of [EPISODES, GROUPS]) {
    if (!path.startsWith(prefix)) continue;
    const end = path.indexOf('/', prefix.length);
    return prefixOwner(tryDecodeURIComponent(path.slice(prefix.length, end < 0 ? undefined : end)));
  }
  if (path === '/mcp') {
    const session = request.headers['mcp-session-id'];
    if (typeof session === 'string') return prefixOwner(session);
    const attach = queryParam(request.url, 'episode') ?? request.headers[EPISODE_HEADER];
    return typeof attach === 'string' ? prefixOwner(attach) : undefined;
  }
  if (OPENENV_EPISODE_ROUTES.has(path)) {
    const episode = queryParam(request.url, 'episode_id');
    return episode === null ? undefined : prefixOwner(episode);
  }
  const episode = request.headers[EPISODE_HEADER];
  if (typeof episode !== 'string') return undefined;
  const callInEpisode =
    path.startsWith('/apis/') || (request.method === 'POST' && (path === '/v1/calls' || TOOL_CALL.test(path)));
  return callInEpisode ? prefixOwner(episode) : undefined;
}

function queryParam(url = '', name: string): string | null {
  const query = url.indexOf('?');
  return query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get(name);
}

function prefixOwner(id: string): number | undefined {
  const match = PREFIXED_ID.exec(id);
  return match ? Number(match[1]) : undefined;
}
