import type { EpisodeStore } from '../episodes/store.js';
import type { CallResult, Simulator } from '../simulator/types.js';
import type { CallerCredentials } from '../simulator/upstream/credentials.js';
import { isPlainObject, parseJsonBody } from './json-body.js';
import { controlsOf } from './prefer.js';
import { httpProblem } from '../http/problem-response.js';
import { episodeCallResult } from './episode-call.js';

/** The route pattern of a single tool call, as hono routes it and as /metrics labels it. */
export const CALL_ROUTE = '/v1/tools/:id/call';

/** `POST /v1/tools/{id}/call` as a transport hands it over. */
export interface ToolCallRequest {
  /** The tool id, percent-decoded. */
  toolId: string;
  /** The body as sent; an empty one means no arguments. */
  body: string;
  prefer: string | undefined;
  /** The request target (path and query, or the whole URL): the control query parameters are read from it. */
  url: string;
  /** `x-toolenv-episode`: the episode the call is a step of. */
  episode: string | undefined;
  /** The caller's own credentials for the real API (`serve --upstream`). */
  credentials?: CallerCredentials;
}

/**
 * Runs a tool call request: the body must be `{"arguments": {...}}` (or empty), and an episode header makes it a step
 * of that episode. A request that is wrong as a whole throws a 400 problem; the tool's own refusals (unknown tool, bad
 * arguments) are its result.
 */
export function toolCall(
  ctx: { simulator: Simulator; episodes?: EpisodeStore },
  request: ToolCallRequest,
): Promise<CallResult> {
  const body = parseJsonBody(request.body) ?? {};
  if (!isPlainObject(body))
    throw httpProblem(400, 'the request body must be a JSON object {"arguments": {...}}', {
      title: 'Invalid request body',
    });
  for (const key in body) {
    if (key !== 'arguments')
      throw httpProblem(
        400,
        `unknown member ${JSON.stringify(key)} in the request body; it takes {"arguments": {...}}`,
        { title: 'Invalid request body' },
      );
  }
  const controls = controlsOf(request.prefer, request.url);
  if (request.episode !== undefined)
    return episodeCallResult(ctx.episodes, request.episode, request.toolId, body.arguments, controls);
  return ctx.simulator.call(request.toolId, body.arguments ?? {}, { controls, credentials: request.credentials });
}
