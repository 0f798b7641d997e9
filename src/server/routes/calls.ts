import { Hono } from 'hono';
import type { CallResult } from '../../simulator/types.js';
import type { AppContext } from '../context.js';
import { isPlainObject, readJsonBody } from '../json-body.js';
import { requestControls } from '../prefer.js';
import { httpProblem } from '../problems.js';

/** The default cap on calls per batch: enough for any plan step, small enough that one request cannot hog the server. */
export const DEFAULT_MAX_BATCH = 100;

/**
 * `POST /v1/calls` `{"calls": [{"tool", "arguments"}…]}`: every call runs concurrently and the results come back in
 * request order, each as the call's own status and body. Prefer controls apply to every call of the batch.
 */
export function callRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post('/v1/calls', async (c) => {
    const body = await readJsonBody(c);
    const calls = isPlainObject(body) ? body.calls : undefined;
    if (!Array.isArray(calls)) throw invalid('the request body must be a JSON object {"calls": [{"tool": ID, "arguments": {...}}, ...]}');
    if (calls.length === 0) throw invalid('calls is empty; send at least one call');
    if (calls.length > ctx.maxBatch) throw invalid(`a batch holds at most ${ctx.maxBatch} calls, got ${calls.length}; split it`, { max_batch: ctx.maxBatch });
    calls.forEach((call, i) => {
      if (!isPlainObject(call) || typeof call.tool !== 'string') throw invalid(`calls[${i}] must be an object with a string "tool" and an "arguments" object`);
      const extra = Object.keys(call).find((key) => key !== 'tool' && key !== 'arguments');
      if (extra !== undefined) throw invalid(`calls[${i}] has an unknown member ${JSON.stringify(extra)}; a call takes "tool" and "arguments"`);
    });
    const controls = requestControls(c);
    const results = await Promise.all(
      (calls as { tool: string; arguments?: unknown }[]).map((call) => ctx.simulator.call(call.tool, call.arguments ?? {}, { controls }).then(summarize)),
    );
    return c.json({ results });
  });
  return app;
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
