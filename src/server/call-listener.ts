import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { KEY_HEADER, type KeyCheck } from './auth.js';
import type { EpisodeStore } from '../episodes/store.js';
import { EPISODE_HEADER } from '../episodes/header.js';
import type { Simulator } from '../simulator/types.js';
import { callAnswer, type CallAnswer } from './call-response.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';
import { CLIENT_CLOSED, errorResponse, INTERNAL_ERROR_DETAIL } from './error-response.js';
import { incomingHeader } from './request-header.js';
import type { HttpMetrics } from './http-metrics.js';
import { CALL_ROUTE, toolCall } from './tool-call.js';
import { parseJsonBody } from './json-body.js';
import { stepJson } from '../episodes/step-json.js';
import { createdEpisodeJson } from '../episodes/created-json.js';
import type { CreatedEpisode } from '../wire/episodes.js';
import { callerCredentials, type CallerCredentials } from '../simulator/upstream/credentials.js';

/**
 * `/v1/tools/{id}/call` and its query: one segment for the id, as hono's `:id` matches. Targets that URL parsing
 * would rewrite before hono routes them (a backslash, a `#`) are left to the app.
 */
const CALL_PATH = /^\/v1\/tools\/([^/?#\\]+)\/call(?:\?|$)/;

/** Host headers seen, and whether the app would take each as it is; clients send one or two, so few are kept. */
const MAX_HOSTS = 64;

export interface CallListenerOptions {
  simulator: Simulator;
  episodes?: EpisodeStore;
  metrics: HttpMetrics;
  /** Largest body this path reads; a larger one goes to the app, which answers 413. */
  bodyLimit: number;
  /** When the server has an API key: whether the request's Authorization or x-toolenv-key carries it. */
  accepts?: KeyCheck;
  /** Where unexpected errors are logged, as the app logs them. */
  log: (line: string) => void;
}

/** `/v1/episodes/{id}/step` and `/turns`, with the same one-segment id rule as calls. */
const EPISODE_PATH = /^\/v1\/episodes\/([^/?#\\]+)\/(step|turns)(?:\?|$)/;
/** `/v1/episodes` itself (a new episode), and `/v1/episodes/{id}` (one ended). */
const EPISODES_PATH = /^\/v1\/episodes(?:\?|$)/;
const ONE_EPISODE_PATH = /^\/v1\/episodes\/([^/?#\\]+)(?:\?|$)/;

/** The episode routes' patterns, as hono routes them and as /metrics labels them. */
const STEP_ROUTE = '/v1/episodes/:id/step';
const TURNS_ROUTE = '/v1/episodes/:id/turns';
const EPISODES_ROUTE = '/v1/episodes';
const EPISODE_ROUTE = '/v1/episodes/:id';

/** What `application/json` answers carry. */
const JSON_TYPE = 'application/json';

/**
 * A request this path answers: its method and route (for /metrics), its line (for the error log), and the answer to its
 * body.
 */
interface FrontRequest {
  method: 'POST' | 'DELETE';
  route: string;
  line: string;
  /** May throw (a request wrong as a whole) before any promise exists. */
  answer(body: string, incoming: IncomingMessage): Promise<CallAnswer>;
}

/**
 * The requests a rollout makes most, answered from node's own request and response in front of the app: `POST
 * /v1/tools/{id}/call`, and an episode's whole life: `POST /v1/episodes`, `POST /v1/episodes/{id}/step` and
 * `/turns`, `DELETE /v1/episodes/{id}` (an episode of eight turns is created and deleted once). Through
 * @hono/node-server and hono the same request costs about half as much CPU again (a web Request around node's, the body
 * read through it, the middleware chain's promises, a web Response written back), as much as a cached call itself. They
 * run what the hono routes run (`toolCall`, the episode store). Everything else goes to `app`: other routes, and
 * requests this path would have to refuse or rewrite (an odd Host or request target, a body without Content-Length or
 * over the limit, a missing or wrong API key), which the app answers as always.
 */
export function callListener(options: CallListenerOptions, app: RequestListener): RequestListener {
  const decoder = new TextDecoder();
  const plainHost = hostCheck();
  return (incoming, outgoing) => {
    const front = frontRequest(incoming.method, incoming.url, options);
    if (
      front === undefined ||
      !plainHost(incoming.headers.host) ||
      !(front.method === 'DELETE' ? bodiless(incoming) : bodyWithin(incoming, options.bodyLimit)) ||
      (options.accepts && !options.accepts(onlyHeader(incoming, 'authorization'), onlyHeader(incoming, KEY_HEADER)))
    ) {
      app(incoming, outgoing);
      return;
    }
    const started = options.metrics.begin();
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The client went away before its body arrived: nobody reads an answer; counted as the app counts it.
    incoming.on('error', () => options.metrics.end(front.method, front.route, CLIENT_CLOSED, started));
    incoming.on('end', () => {
      const failed = (error: unknown) =>
        sendResponse(outgoing, errorResponse(error, front.line, options.log), options, front, started);
      let answered: Promise<void>;
      try {
        const body = chunks.length === 0 ? '' : decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        answered = front
          .answer(body, incoming)
          .then((answer) => send(outgoing, answer, options, front, started), failed);
      } catch (error) {
        // A request wrong as a whole (malformed JSON, a bad Prefer) is refused before any promise exists.
        answered = failed(error);
      }
      answered.catch((error: unknown) => {
        // The answer could not be built (a body JSON cannot hold) or node refused to write it (a header value it does
        // not take): a 500 problem instead, if nothing went out yet.
        options.log(
          `toolenv: ${front.line}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        if (outgoing.headersSent) {
          options.metrics.end(front.method, front.route, 500, started);
          outgoing.destroy();
          return;
        }
        send(
          outgoing,
          { status: 500, headers: { 'content-type': PROBLEM_CONTENT_TYPE }, text: INTERNAL_ERROR },
          options,
          front,
          started,
        );
      });
    });
  };
}

/** The request this path answers for `method` at `url`, or undefined (the app's). */
function frontRequest(
  method: string | undefined,
  url: string | undefined,
  options: CallListenerOptions,
): FrontRequest | undefined {
  if (method === 'DELETE') return deleteRequest(url, options.episodes);
  if (method !== 'POST') return undefined;
  const toolId = callToolId(url);
  if (toolId !== undefined) {
    return {
      method,
      route: CALL_ROUTE,
      line: requestLine(toolId),
      answer: (body, incoming) =>
        toolCall(options, {
          toolId,
          body,
          prefer: incomingHeader(incoming, 'prefer'),
          url: incoming.url!,
          episode: incomingHeader(incoming, EPISODE_HEADER),
          credentials: listenerCredentials(incoming, options),
        }).then(callAnswer),
    };
  }
  const episodes = options.episodes;
  if (!episodes || url === undefined) return undefined;
  if (EPISODES_PATH.test(url)) {
    return {
      method,
      route: EPISODES_ROUTE,
      line: 'POST /v1/episodes',
      answer: async (body) => createdAnswer(episodes.create(parseJsonBody(body))),
    };
  }
  const match = EPISODE_PATH.exec(url);
  const id = match ? decodedSegment(match[1]!) : undefined;
  if (id === undefined) return undefined;
  if (match![2] === 'step') {
    return {
      method,
      route: STEP_ROUTE,
      line: `POST /v1/episodes/${id}/step`,
      answer: (body) => episodes.step(id, parseJsonBody(body)).then((result) => jsonAnswer(stepJson(result))),
    };
  }
  return {
    method,
    route: TURNS_ROUTE,
    line: `POST /v1/episodes/${id}/turns`,
    answer: (body) => episodes.turn(id, parseJsonBody(body)).then((result) => jsonAnswer(JSON.stringify(result))),
  };
}

/** `DELETE /v1/episodes/{id}`: the episode ended, answered with its final summary (as the hono route answers it). */
function deleteRequest(url: string | undefined, episodes: EpisodeStore | undefined): FrontRequest | undefined {
  const match = episodes && url !== undefined ? ONE_EPISODE_PATH.exec(url) : null;
  const id = match ? decodedSegment(match[1]!) : undefined;
  if (!episodes || id === undefined) return undefined;
  return {
    method: 'DELETE',
    route: EPISODE_ROUTE,
    line: `DELETE /v1/episodes/${id}`,
    answer: async () => jsonAnswer(JSON.stringify(episodes.end(id))),
  };
}

/** A new episode's answer: 201 with its Location. */
const createdAnswer = (created: CreatedEpisode): CallAnswer => ({
  status: 201,
  headers: { 'content-type': JSON_TYPE, location: `/v1/episodes/${created.id}` },
  text: createdEpisodeJson(created),
});

/**
 * The caller's credentials for the real API: Authorization is ToolEnv's own when the server's key did not come in
 * x-toolenv-key. Undefined when the simulator forwards nothing, so that a simulated call builds none.
 */
function listenerCredentials(
  incoming: IncomingMessage,
  { simulator, accepts }: CallListenerOptions,
): CallerCredentials | undefined {
  if (!simulator.forwards) return undefined;
  return callerCredentials(
    (name) => {
      const value = incoming.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    (name) => new URL(incoming.url!, 'http://localhost').searchParams.get(name) ?? undefined,
    () => accepts !== undefined && !accepts(undefined, onlyHeader(incoming, KEY_HEADER)),
  );
}

const jsonAnswer = (text: string): CallAnswer => ({ status: 200, headers: { 'content-type': JSON_TYPE }, text });

/** A call request as the app's error log names it: method and decoded path. */
const requestLine = (toolId: string) => `POST /v1/tools/${toolId}/call`;

const INTERNAL_ERROR = JSON.stringify(problem(500, undefined, INTERNAL_ERROR_DETAIL));

/**
 * The percent-decoded tool id of a call's request target, or undefined when it is not one this path can take: a
 * malformed escape, or an id that decodes to `.` or `..` (URL parsing removes those segments before hono routes).
 */
export function callToolId(url: string | undefined): string | undefined {
  const match = url === undefined ? null : CALL_PATH.exec(url);
  return match ? decodedSegment(match[1]!) : undefined;
}

/** A path segment percent-decoded, or undefined for a malformed escape or one that decodes to `.` or `..`. */
function decodedSegment(segment: string): string | undefined {
  let id = segment;
  if (id.includes('%')) {
    try {
      id = decodeURIComponent(id);
    } catch {
      return undefined;
    }
  }
  return id === '.' || id === '..' ? undefined : id;
}

/**
 * Whether a Host header is one the app takes as it is. @hono/node-server refuses a missing Host and one that URL
 * parsing fails on or rewrites (userinfo, an out-of-range port, a non-canonical IPv4 address): such requests are the
 * app's to refuse. The verdict is kept per header value, so URL parsing runs once per host, not per request.
 */
export function hostCheck(): (host: string | undefined) => boolean {
  const verdicts = new Map<string, boolean>();
  return (host) => {
    if (host === undefined) return false;
    let plain = verdicts.get(host);
    if (plain === undefined) {
      plain = parsedHost(host) === host.toLowerCase();
      if (verdicts.size >= MAX_HOSTS) verdicts.clear();
      verdicts.set(host, plain);
    }
    return plain;
  };
}

/** The host of `http://HOST/` as URL parsing writes it, or undefined when it does not parse. */
function parsedHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).host;
  } catch {
    return undefined;
  }
}

/** Whether the request declares no body at all (a DELETE's), or an empty one. */
function bodiless(incoming: IncomingMessage): boolean {
  const declared = incomingHeader(incoming, 'content-length');
  return incomingHeader(incoming, 'transfer-encoding') === undefined && (declared === undefined || declared === '0');
}

/**
 * Whether the body's length is declared up front and within the limit (a chunked body is left to the app, which counts
 * it).
 */
function bodyWithin(incoming: IncomingMessage, limit: number): boolean {
  const declared = incomingHeader(incoming, 'content-length');
  return (
    declared !== undefined && incomingHeader(incoming, 'transfer-encoding') === undefined && Number(declared) <= limit
  );
}

/**
 * A header sent exactly once, or undefined: node keeps only the first of repeated Authorization headers, the app sees
 * them all.
 */
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

function send(
  outgoing: ServerResponse,
  { status, headers, text }: CallAnswer,
  options: CallListenerOptions,
  front: FrontRequest,
  started: number,
): void {
  if (text !== null) headers['content-length'] = String(Buffer.byteLength(text));
  outgoing.writeHead(status, headers);
  outgoing.end(text ?? undefined);
  options.metrics.end(front.method, front.route, status, started);
}

/** A web Response (a problem) written to node's response: the rare answers, built by the app's own error handling. */
async function sendResponse(
  outgoing: ServerResponse,
  response: Response,
  options: CallListenerOptions,
  front: FrontRequest,
  started: number,
): Promise<void> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  send(outgoing, { status: response.status, headers, text }, options, front, started);
}
