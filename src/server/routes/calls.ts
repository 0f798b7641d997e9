import { schemaNumber } from '../../wire/schemas.js';
import { Hono, type Context } from 'hono';
import type { CallControls, CallResult } from '../../simulator/types.js';
import type { AppContext } from '../context.js';
import { requestCredentials } from '../credentials.js';
import { isPlainObject, readJsonBody } from '../json-body.js';
import { requestControls } from '../prefer.js';
import { requestHeader } from '../request-header.js';
import { httpProblem } from '../../http/problem-response.js';
import { unknownEpisode } from '../../episodes/errors.js';
import { MAX_ACTIONS } from '../../episodes/limits.js';
import { EPISODE_HEADER } from '../../episodes/header.js';
import { CONTROLS, EPISODE_HEADER_PARAM, json, PROBLEMS, ref, type Operations } from '../openapi-parts.js';

/**
 * The default cap on calls per batch: enough for any plan step, small enough that one request cannot hog the server.
 */
export const DEFAULT_MAX_BATCH = schemaNumber('server', '/$defs/BatchRequest/properties/calls/maxItems');

/**
 * `POST /v1/calls` `{"calls": [{"tool", "arguments"}…]}`: every call runs concurrently and the results come back in
 * request order, each as the call's own status and body. Prefer controls apply to every call of the batch. With
 * `x-toolenv-episode` the batch is one step of that episode.
 */
export function callRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post('/v1/calls', async (c) => {
    const body = await readJsonBody(c);
    const calls = isPlainObject(body) ? body.calls : undefined;
    if (!Array.isArray(calls))
      throw invalid('the request body must be a JSON object {"calls": [{"tool": ID, "arguments": {...}}, ...]}');
    if (calls.length === 0) throw invalid('calls is empty; send at least one call');
    if (calls.length > ctx.maxBatch)
      throw invalid(`a batch holds at most ${ctx.maxBatch} calls, got ${calls.length}; split it`, {
        max_batch: ctx.maxBatch,
      });
    calls.forEach((call, i) => {
      if (!isPlainObject(call) || typeof call.tool !== 'string')
        throw invalid(`calls[${i}] must be an object with a string "tool" and an "arguments" object`);
      const extra = Object.keys(call).find((key) => key !== 'tool' && key !== 'arguments');
      if (extra !== undefined)
        throw invalid(
          `calls[${i}] has an unknown member ${JSON.stringify(extra)}; a call takes "tool" and "arguments"`,
        );
    });
    const controls = requestControls(c);
    const episode = requestHeader(c, EPISODE_HEADER);
    if (episode !== undefined)
      return episodeBatch(ctx, c, episode, calls as { tool: string; arguments?: unknown }[], controls);
    const credentials = requestCredentials(ctx, c);
    const results = await Promise.all(
      (calls as { tool: string; arguments?: unknown }[]).map((call) =>
        ctx.simulator.call(call.tool, call.arguments ?? {}, { controls, credentials }).then(summarize),
      ),
    );
    return c.json({ results });
  });
  return app;
}

/** The operations of callRoutes, for batches of at most `maxBatch` calls. */
export function callOperations(maxBatch: number): Operations {
  return {
    '/v1/calls': {
      post: {
        operationId: 'callBatch',
        tags: ['Tools'],
        summary: `Up to ${maxBatch} calls, run concurrently; results in request order`,
        description:
          'Prefer controls (header or query) apply to every call of the batch. With `x-toolenv-episode` the batch is ' +
          'one step of that episode (world state and its error stream apply) and holds at most ' +
          `${MAX_ACTIONS} calls, as a step does; the answer then also carries \`step\` and \`done\`.`,
        parameters: [...CONTROLS, EPISODE_HEADER_PARAM],
        requestBody: { required: true, content: { 'application/json': { schema: ref('BatchRequest') } } },
        responses: { '200': json('One result per call, in order.', ref('BatchResponse')), ...PROBLEMS },
      },
    },
  };
}

/**
 * A batch inside an episode is one step of it: its calls run concurrently and are recorded together, and it is
 * checked as a whole, as a step is — refusals name the batch's own members (`/calls/1/arguments`).
 */
async function episodeBatch(
  ctx: AppContext,
  c: Context,
  episode: string,
  calls: { tool: string; arguments?: unknown }[],
  controls: CallControls,
) {
  if (!ctx.episodes) throw httpProblem(404, 'this server keeps no episodes', { title: 'Unknown episode' });
  // The episode before the bound: a batch naming none is a 404 at any size, as the document's maxItems admits it.
  if (!ctx.episodes.isLive(episode)) throw unknownEpisode(episode, ctx.episodes.ttlMs);
  if (calls.length > MAX_ACTIONS)
    throw invalid(
      `a batch inside an episode is one step and holds at most ${MAX_ACTIONS} calls, got ${calls.length}; split it`,
      { max_batch: MAX_ACTIONS },
    );
  const hasControls = Object.keys(controls).length > 0;
  const actions = calls.map((call) => ({
    type: 'tool_call',
    tool: call.tool,
    arguments: call.arguments ?? {},
    ...(hasControls ? { controls } : {}),
  }));
  const step = await ctx.episodes.step(episode, { actions }, '/calls');
  const results = step.observations.map((observation) => {
    if (observation.type !== 'tool_call')
      throw new Error(`episode step answered a ${observation.type} observation to a tool call`);
    const { type: _type, id: _id, tool: _tool, ...result } = observation;
    return result;
  });
  return c.json({ results, step: step.step, done: step.done }, 200, { 'x-toolenv-step': String(step.step) });
}

function summarize(result: CallResult) {
  return {
    status: result.status,
    body: result.body,
    source: result.source,
    ...(result.error ? { error: result.error } : {}),
    ...(Object.keys(result.headers).length > 0 ? { headers: result.headers } : {}),
  };
}

function invalid(detail: string, extra?: Record<string, unknown>) {
  return httpProblem(400, detail, { title: 'Invalid request body', extra });
}
