import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problem } from '../../simulator/problem.js';

/** Headers that describe one connection, not the message: each hop sets its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** Keeps the connections to the other workers' sockets open between requests. */
export const workerAgent = new Agent({ keepAlive: true });

/**
 * Passes a request to the worker that holds its episode, over that worker's private socket, and streams the
 * answer back as it comes (MCP answers may be event streams). A worker that cannot be reached (it is restarting)
 * is a 503 the client may retry.
 */
export function forward(incoming: IncomingMessage, outgoing: ServerResponse, socket: string, owner: number): void {
  const upstream = request({ socketPath: socket, agent: workerAgent, method: incoming.method, path: incoming.url, headers: endToEnd(incoming.headers) });
  upstream.on('response', (answer: IncomingMessage) => {
    const headers: OutgoingHttpHeaders = endToEnd(answer.headers);
    // The owner closes after answers that leave a request body unread (413): so must this hop.
    if (answer.headers.connection === 'close') headers.connection = 'close';
    outgoing.writeHead(answer.statusCode ?? 502, headers);
    answer.pipe(outgoing);
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (outgoing.headersSent) {
      outgoing.destroy(error);
      return;
    }
    const body = problem(503, 'Worker unavailable', `worker ${owner}, which holds this episode, cannot be reached (${error.code ?? error.message}); it is restarting — retry shortly`);
    outgoing.writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE, 'retry-after': '1' });
    outgoing.end(JSON.stringify(body));
  });
  // A client that goes away (an abandoned event stream) releases the owner's side too.
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) upstream.destroy();
  });
  incoming.pipe(upstream);
}

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) kept[name] = headers[name];
  return kept;
}
