import { request, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { forward, workerAgent } from './forward.js';
import { labelByWorker, type WorkerExposition } from './metrics.js';
import { ownerOf, routedPath } from './owner.js';
import { socketPath, type WorkerPlacement } from './placement.js';

/** Names the worker that answered, on every response of a cluster. */
export const WORKER_HEADER = 'x-toolenv-worker';

/** How long the metrics of one worker may take before the exposition goes on without them. */
const SCRAPE_TIMEOUT_MS = 5000;

export interface ClusterListeners {
  /** On the shared port: passes requests about another worker's episode there, serves /metrics of the whole cluster. */
  front: RequestListener;
  /** On this worker's private socket: the app as it is, for the other workers' forwarded requests and scrapes. */
  internal: RequestListener;
  /** This worker's forwarding counter, for its own exposition. */
  metrics: { toPrometheus(): string };
}

/**
 * A worker's two listeners around the app's own. Episodes and MCP sessions live in the memory of the worker that
 * made them, while the primary hands connections to workers in turn: a request naming another worker's episode
 * is passed to that worker, and everything else is answered here.
 */
export function clusterListeners(
  placement: WorkerPlacement,
  app: RequestListener,
  bodyLimit: number,
): ClusterListeners {
  const self = String(placement.index);
  const sockets = Array.from({ length: placement.count }, (_, index) => socketPath(placement.socketDir, index));
  let forwarded = 0;
  const internal: RequestListener = (incoming, outgoing) => {
    outgoing.setHeader(WORKER_HEADER, self);
    app(incoming, outgoing);
  };
  const front: RequestListener = (incoming, outgoing) => {
    const path = routedPath(incoming.url ?? '/');
    if (path === '/metrics' && (incoming.method === 'GET' || incoming.method === 'HEAD')) {
      outgoing.setHeader(WORKER_HEADER, self);
      clusterMetrics(incoming, outgoing, sockets).catch((error: Error) => outgoing.destroy(error));
      return;
    }
    const owner = ownerOf(incoming, path);
    if (owner !== undefined && owner !== placement.index && owner < placement.count) {
      forwarded++;
      // What this worker answers itself (413, 503) names it; the owner's answers name the owner.
      outgoing.setHeader(WORKER_HEADER, self);
      forward(incoming, outgoing, { owner, socket: sockets[owner]!, bodyLimit });
      return;
    }
    internal(incoming, outgoing);
  };
  const metrics = {
    toPrometheus: () =>
      [
        '# HELP toolenv_cluster_forwarded_requests_total Requests a worker passed to the worker holding their episode.',
        '# TYPE toolenv_cluster_forwarded_requests_total counter',
        `toolenv_cluster_forwarded_requests_total ${forwarded}`,
        '',
      ].join('\n'),
  };
  return { front, internal, metrics };
}

interface Scrape {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * `/metrics` of the whole cluster: every worker's exposition, its series labelled with the worker's index. A refusal
 * (401 without the API key) is answered as the workers gave it; a worker that does not answer (restarting) is left
 * out and counted. Each worker counts the scrape it answers (in flight, and in its GET /metrics requests) as a plain
 * server counts the scrape it is answering; the request on the shared port, answered here, is counted by none.
 */
async function clusterMetrics(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  sockets: readonly string[],
): Promise<void> {
  const scrapes = await Promise.all(sockets.map((socket) => scrape(socket, incoming).catch(() => undefined)));
  const answered: (Scrape & WorkerExposition)[] = scrapes.flatMap((found, worker) =>
    found ? [{ ...found, worker }] : [],
  );
  const refused = answered.find((found) => found.status !== 200);
  if (refused) {
    outgoing.writeHead(refused.status, refused.headers);
    outgoing.end(refused.text);
    return;
  }
  const text =
    labelByWorker(answered) +
    [
      '# HELP toolenv_cluster_workers Worker processes serving this port, and how many of them answered this scrape.',
      '# TYPE toolenv_cluster_workers gauge',
      `toolenv_cluster_workers{state="configured"} ${sockets.length}`,
      `toolenv_cluster_workers{state="answered"} ${answered.length}`,
      '',
    ].join('\n');
  outgoing.writeHead(200, {
    'content-type': answered[0]?.headers['content-type'] ?? 'text/plain; version=0.0.4; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  // A HEAD request gets the headers alone: node sends no body for it.
  outgoing.end(text);
}

function scrape(socket: string, incoming: IncomingMessage): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    const headers =
      incoming.headers.authorization === undefined ? {} : { authorization: incoming.headers.authorization };
    const asked = request(
      { socketPath: socket, agent: workerAgent, method: 'GET', path: '/metrics', headers, timeout: SCRAPE_TIMEOUT_MS },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => {
          const kept: Record<string, string> = {};
          for (const name of ['content-type', 'www-authenticate']) {
            const value = answer.headers[name];
            if (typeof value === 'string') kept[name] = value;
          }
          resolve({ status: answer.statusCode ?? 502, headers: kept, text });
        });
        answer.on('error', reject);
      },
    );
    asked.on('timeout', () => asked.destroy(new Error('timed out')));
    asked.on('error', reject);
    asked.end();
  });
}
