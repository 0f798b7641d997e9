import {
  Agent,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { pipeline } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, problem } from '../../simulator/problem.js';
import { bodyTooLarge } from '../body-limit.js';
import { drainBody } from '../drain.js';

/** Headers that describe one connection, not the message: each hop sets its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** Keeps the connections to the other workers' sockets open between requests. */
export const workerAgent = new Agent({ keepAlive: true });

/** The worker a request goes to, and the body limit the app would hold it to. */
export interface ForwardTarget {
  owner: number;
  socket: string;
  bodyLimit: number;
}

/**
 * Passes a request to the worker that holds its episode, over that worker's private socket, and streams the
 * answer back as it comes (MCP answers may be event streams). A body over the limit is refused here, as the owner
 * would refuse it: the owner would close its socket on the rest of the body while this hop still sends it.
 * A worker that cannot be reached is a 503 the client may retry.
 *
 * No `X-Forwarded-For` is added: on the REST surface request headers become tool arguments (some tools declare
 * that header), so a forwarded call would be answered otherwise than one that reached its owner directly.
 */
export function forward(incoming: IncomingMessage, outgoing: ServerResponse, target: ForwardTarget): void {
  const declared = incoming.headers['content-length'];
  if (
    declared !== undefined &&
    incoming.headers['transfer-encoding'] === undefined &&
    Number(declared) > target.bodyLimit
  ) {
    void drainBody(incoming).then((drained) => send(outgoing, bodyTooLarge(target.bodyLimit, drained)));
    return;
  }
  const upstream = request({
    socketPath: target.socket,
    agent: workerAgent,
    method: incoming.method,
    path: incoming.url,
    headers: endToEnd(incoming.headers),
  });
  // Set once the body is no longer passed on: refused over the limit, the owner gone, or the client gone.
  let stopped = false;
  const stop = () => {
    stopped = true;
    upstream.destroy();
    // The rest of the body is read and dropped, not left stuck in the connection.
    incoming.resume();
  };

  upstream.on('response', (answer: IncomingMessage) => {
    const headers = endToEnd(answer.headers);
    // The owner closes after answers that leave a request body unread: so must this hop.
    if (answer.headers.connection === 'close') headers.connection = 'close';
    outgoing.writeHead(answer.statusCode ?? 502, headers);
    // An owner that dies mid-answer (an event stream) cuts the client's connection too, rather than leave it waiting.
    pipeline(answer, outgoing, () => {});
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (stopped) return;
    stopped = true;
    incoming.resume();
    // Once the owner has answered, its answer stands (pipeline cuts the client off if the answer itself breaks).
    if (outgoing.headersSent) return;
    const detail =
      `worker ${target.owner}, which holds this episode, ` +
      `cannot be reached (${error.code ?? error.message}); retry shortly`;
    outgoing.writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE, 'retry-after': '1' });
    outgoing.end(JSON.stringify(problem(503, 'Worker unavailable', detail)));
  });
  // A client that goes away (an abandoned event stream) releases the owner's side too, and so does an answer that
  // ends before the body does: the owner needs no more of it.
  outgoing.on('close', () => {
    if (!stopped && !(outgoing.writableFinished && incoming.complete)) stop();
  });

  // The body is copied by hand, not piped, to count it: a chunked body declares no length to judge beforehand.
  let received = 0;
  incoming.on('data', (chunk: Buffer) => {
    if (stopped) return;
    received += chunk.length;
    if (received > target.bodyLimit) {
      stop();
      if (outgoing.headersSent) outgoing.destroy();
      else void drainBody(incoming).then((drained) => send(outgoing, bodyTooLarge(target.bodyLimit, drained)));
      return;
    }
    if (!upstream.write(chunk)) incoming.pause();
  });
  upstream.on('drain', () => incoming.resume());
  incoming.on('end', () => {
    if (!stopped) upstream.end();
  });
}

/** Writes one of the app's own (web) responses. */
async function send(outgoing: ServerResponse, response: Response): Promise<void> {
  const body = await response.text();
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  outgoing.end(body);
}

/** The headers a message keeps across a hop: not the hop-by-hop ones, nor those its `Connection` header names. */
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connection = headers.connection;
  const named =
    connection === undefined
      ? []
      : connection
          .toLowerCase()
          .split(',')
          .map((name) => name.trim());
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name) && !named.includes(name)) kept[name] = headers[name];
  return kept;
}
