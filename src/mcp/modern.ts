import { HTTPException } from 'hono/http-exception';
import { EPISODE_HEADER } from '../episodes/header.js';
import { MODERN_VERSIONS, SERVER_INFO_KEY, isObject } from './era.js';
import { INVALID_PARAMS, JsonRpcError, METHOD_NOT_FOUND, errorResponse, resultResponse } from './jsonrpc.js';
import { readModernMessage } from './modern-request.js';
import { readModernParams, type Listing, type ModernParams } from './session-params.js';
import { SERVER_INFO, callTool, instructions, listTools, type ToolsDeps } from './tools-service.js';

/** How long a client may reuse a listing: the library does not change while the server runs, a working set does. */
const LISTING_TTL_MS = 60_000;

type Method = (
  deps: ToolsDeps,
  served: ModernParams,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** The 2026-07-28 methods ToolEnv serves; any other is "method not found", `initialize` and `ping` included. */
const METHODS: Record<string, Method> = {
  'server/discover': (_deps, served) => ({
    supportedVersions: MODERN_VERSIONS,
    // No listChanged: a working set's growth would be announced on a subscriptions/listen stream, which ToolEnv does
    // not keep.
    capabilities: { tools: {} },
    instructions: instructions(served.listing, recording(served.episode), false),
    // The instructions name the episode, which the next request may change.
    ttlMs: 0,
    cacheScope: 'private',
  }),
  'tools/list': (deps, served, params) => {
    if (params.cursor !== undefined && typeof params.cursor !== 'string')
      throw invalid("params.cursor must be a string, as a previous page's nextCursor");
    const { listing, episode } = served;
    if (listing.kind === 'working-set' && episode !== undefined && deps.episodes.summary(episode) === undefined)
      throw unknownEpisode(episode);
    // Private: the listing depends on the URL, which a shared cache's key need not hold.
    return { ...listTools(deps, listing, episode, params.cursor), ttlMs: ttlOf(listing), cacheScope: 'private' };
  },
  'tools/call': async (deps, served, params) => {
    const { name, arguments: input } = params;
    if (typeof name !== 'string') throw invalid('params.name must be the name of a listed tool');
    if (input !== undefined && !isObject(input)) throw invalid('params.arguments must be a JSON object');
    if (served.episode === undefined) {
      throw invalid(
        'tools/call records into an episode: create one with POST /v1/episodes and name it with the ' +
          'x-toolenv-episode header or ?episode=',
      );
    }
    const outcome = await callTool(deps, { episode: served.episode, listing: served.listing }, name, input);
    if (outcome.kind === 'unknown-tool') throw invalid(`Unknown tool: ${name}`);
    return outcome.result;
  },
};

/**
 * Answers one stateless-era POST to `/mcp`, always in plain JSON: ToolEnv has no progress to stream, and without a
 * session nothing is opened, kept or named by `Mcp-Session-Id`. The episode, if any, is named per request.
 */
export async function answerModern(request: Request, message: unknown, deps: ToolsDeps): Promise<Response> {
  const read = readModernMessage(request.headers, message);
  if (read.kind === 'notification') return new Response(null, { status: 202 });
  if (read.kind === 'rejected') return errorResponse(read.id, read.error);
  const method = Object.hasOwn(METHODS, read.method) ? METHODS[read.method]! : undefined;
  if (method === undefined)
    return errorResponse(read.id, new JsonRpcError(METHOD_NOT_FOUND, 'Method not found', read.method));
  let served: ModernParams;
  try {
    served = readModernParams(
      new URL(request.url).searchParams,
      request.headers.get(EPISODE_HEADER) ?? undefined,
      deps.store,
    );
  } catch (error) {
    if (!(error instanceof HTTPException)) throw error;
    return errorResponse(read.id, new JsonRpcError(INVALID_PARAMS, error.message, await error.getResponse().json()));
  }
  const headers: Record<string, string> = served.episode === undefined ? {} : { [EPISODE_HEADER]: served.episode };
  try {
    const result = await method(deps, served, read.params);
    const meta = isObject(result._meta) ? result._meta : {};
    return resultResponse(
      read.id,
      { ...result, resultType: 'complete', _meta: { ...meta, [SERVER_INFO_KEY]: SERVER_INFO } },
      headers,
    );
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    return errorResponse(read.id, error, headers);
  }
}

function recording(episode: string | undefined): string {
  return episode === undefined
    ? 'Tool calls record into an episode named by the x-toolenv-episode ' +
        'header or ?episode= (create one with POST /v1/episodes).'
    : `Tool calls record into ToolEnv episode ${episode}: GET /v1/episodes/${episode} returns the trajectory.`;
}

function ttlOf(listing: Listing): number {
  return listing.kind === 'working-set' ? 0 : LISTING_TTL_MS;
}

function invalid(message: string): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message);
}

function unknownEpisode(episode: string): JsonRpcError {
  return invalid(`no episode ${JSON.stringify(episode)}: it ended or expired; create one with POST /v1/episodes`);
}
