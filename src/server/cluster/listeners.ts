import { request, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { forward, workerAgent } from './forward.js';
import { mergeExpositions } from './metrics.js';
import { ownerOf } from './owner.js';
import { socketPath, type WorkerPlacement } from './placement.js';

/** Names the worker that answered, on every response of a cluster. */
export const WORKER_HEADER = 'x-toolenv-worker';

/** How long the metrics of one worker may take before the exposition goes on without them. */
const SCRAPE_TIMEOUT_MS = 5000;

export interface ClusterListeners {
  /** On the shared port: passes requests about another worker's episode there, sums /metrics over the cluster. */
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
export function clusterListeners(placement: WorkerPlacement, app: RequestListener): ClusterListeners {
  const self = String(placement.index);
  let forwarded = 0;
  const internal: RequestListener = (incoming, outgoing) => {
    outgoing.setHeader(WORKER_HEADER, self);
    app(incoming, outgoing);
  };
  const front: RequestListener = (incoming, outgoing) => {
    const owner = ownerOf(incoming);
    if (owner !== undefined && owner !== placement.index && owner < placement.count) {
      forwarded++;
      forward(incoming, outgoing, socketPath(placement.socketDir, owner), owner);
      return;
    }
    if (incoming.method === 'GET' && (incoming.url === '/metrics' || incoming.url?.startsWith('/metrics?'))) {
      clusterMetrics(incoming, outgoing, placement).catch((error: Error) => outgoing.destroy(error));
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
 * `/metrics` of the whole cluster: every worker's exposition, summed. A refusal (401 without the API key) is
 * answered as the workers gave it; a worker that does not answer (restarting) is left out and counted.
 */
async function clusterMetrics(incoming: IncomingMessage, outgoing: ServerResponse, placement: WorkerPlacement): Promise<void> {
  const sockets = Array.from({ length: placement.count }, (_, index) => socketPath(placement.socketDir, index));
  const scrapes = await Promise.all(sockets.map((socket) => scrape(socket, incoming).catch(() => undefined)));
  const answered = scrapes.filter((found): found is Scrape => found !== undefined);
  const refused = answered.find((found) => found.status !== 200);
  if (refused) {
    outgoing.writeHead(refused.status, refused.headers);
    outgoing.end(refused.text);
    return;
  }
  const text = [
    mergeExpositions(answered.map((found) => found.text)),
    '# HELP toolenv_cluster_workers Worker processes serving this port, and how many of them this exposition sums.',
    '# TYPE toolenv_cluster_workers gauge',
    `toolenv_cluster_workers{state="configured"} ${placement.count}`,
    `toolenv_cluster_workers{state="answered"} ${answered.length}`,
    '',
  ].join('\n');
  outgoing.writeHead(200, { 'content-type': answered[0]?.headers['content-type'] ?? 'text/plain; version=0.0.4; charset=utf-8' });
  outgoing.end(text);
}

function scrape(socket: string, incoming: IncomingMessage): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    const headers = incoming.headers.authorization === undefined ? {} : { authorization: incoming.headers.authorization };
    const asked = request({ socketPath: socket, agent: workerAgent, method: 'GET', path: incoming.url, headers, timeout: SCRAPE_TIMEOUT_MS }, (answer) => {
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
    });
    asked.on('timeout', () => asked.destroy(new Error('timed out')));
    asked.on('error', reject);
    asked.end();
  });
}
