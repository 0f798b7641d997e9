import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { EpisodeStore } from '../episodes/store.js';
import { EPISODE_HEADER } from '../episodes/header.js';
import type { Simulator } from '../simulator/types.js';
import { callAnswer, type CallAnswer } from './call-response.js';
import { errorResponse } from './error-response.js';
import { incomingHeader } from './request-header.js';
import type { HttpMetrics } from './http-metrics.js';
import { toolCall } from './tool-call.js';

/** The route pattern of a single tool call, as hono routes it and as /metrics labels it. */
export const CALL_ROUTE = '/v1/tools/:id/call';

/** `/v1/tools/{id}/call` and its query: one non-empty segment for the id, as hono's `:id` matches. */
const CALL_PATH = /^\/v1\/tools\/([^/?]+)\/call(?:\?|$)/;

export interface CallListenerOptions {
  simulator: Simulator;
  episodes?: EpisodeStore;
  metrics: HttpMetrics;
  /** Largest body this path reads; a larger one goes to the app, which answers 413. */
  bodyLimit: number;
  /** When the server has an API key: whether an Authorization header value carries it. */
  accepts?: (authorization: string | undefined) => boolean;
  /** Where unexpected errors are logged, as the app logs them. */
  log: (line: string) => void;
}

/**
 * `POST /v1/tools/{id}/call`, the request a rollout makes most, answered from node's own request and response in
 * front of the app. Through @hono/node-server and hono the same call costs about half as much CPU again (a web
 * Request around node's, the body read through it, the middleware chain's promises, a web Response written back),
 * as much as the simulated call itself. The call is the same `toolCall` the hono route runs. Everything else goes
 * to `app`: other routes, and calls this path would have to refuse (a body without Content-Length or over the
 * limit, a missing or wrong API key), which the app answers with its problems.
 */
export function callListener(options: CallListenerOptions, app: RequestListener): RequestListener {
  const decoder = new TextDecoder();
  return (incoming, outgoing) => {
    const toolId = incoming.method === 'POST' ? callToolId(incoming.url) : undefined;
    if (toolId === undefined || !bodyWithin(incoming, options.bodyLimit) || (options.accepts && !options.accepts(onlyHeader(incoming, 'authorization')))) {
      app(incoming, outgoing);
      return;
    }
    const started = options.metrics.begin();
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The client went away before its body arrived: there is nobody to answer.
    incoming.on('error', () => options.metrics.abandon());
    incoming.on('end', () => {
      const failed = (error: unknown) => sendResponse(outgoing, errorResponse(error, `POST ${incoming.url}`, options.log), options, started);
      let answered: Promise<void>;
      try {
        const body = decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        const request = { toolId, body, prefer: incomingHeader(incoming, 'prefer'), url: incoming.url!, episode: incomingHeader(incoming, EPISODE_HEADER) };
        answered = toolCall(options, request).then((result) => send(outgoing, callAnswer(result), options, started), failed);
      } catch (error) {
        // A request wrong as a whole (malformed JSON, a bad Prefer) is refused before any promise exists.
        answered = failed(error);
      }
      // Writing the answer itself failed (a header value node refuses): nothing more can be sent on this response.
      answered.catch((error: unknown) => {
        options.log(`toolenv: POST ${incoming.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        options.metrics.abandon();
        outgoing.destroy();
      });
    });
  };
}

/** The percent-decoded tool id of a call's request target, or undefined when it is not one this path can take. */
export function callToolId(url: string | undefined): string | undefined {
  const match = url === undefined ? null : CALL_PATH.exec(url);
  if (!match) return undefined;
  const segment = match[1]!;
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Whether the body's length is declared up front and within the limit (a chunked body is left to the app, which counts it). */
function bodyWithin(incoming: IncomingMessage, limit: number): boolean {
  const declared = incomingHeader(incoming, 'content-length');
  return declared !== undefined && incomingHeader(incoming, 'transfer-encoding') === undefined && Number(declared) <= limit;
}

/** A header sent exactly once, or undefined: node keeps only the first of repeated Authorization headers, the app sees them all. */
function onlyHeader(incoming: IncomingMessage, name: string): string | undefined {
  let found: string | undefined;
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue;
    if (found !== undefined) return undefined;
    found = raw[i + 1]!;
  }
  return found;
}

function send(outgoing: ServerResponse, { status, headers, text }: CallAnswer, options: CallListenerOptions, started: number): void {
  if (text !== null) headers['content-length'] = String(Buffer.byteLength(text));
  outgoing.writeHead(status, headers);
  outgoing.end(text ?? undefined);
  options.metrics.end('POST', CALL_ROUTE, status, started);
}

/** A web Response (a problem) written to node's response: the rare answers, built by the app's own error handling. */
async function sendResponse(outgoing: ServerResponse, response: Response, options: CallListenerOptions, started: number): Promise<void> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  send(outgoing, { status: response.status, headers, text }, options, started);
}
