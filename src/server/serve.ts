import { rmdirSync, rmSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Hono } from 'hono';
import type { AppRoutes } from './app.js';
import { LibraryStore } from '../library/store.js';
import type { CacheMode } from '../simulator/cache-mode.js';
import { openResponseCache } from '../simulator/cache-open.js';
import type { CacheBackend } from '../simulator/cache-types.js';
import { createSimulator, type ToolSimulator } from '../simulator/pipeline.js';
import { PROBLEM_CONTENT_TYPE, problem, type Problem } from '../simulator/problem.js';
import type { Responder } from '../simulator/types.js';
import { EpisodeStore } from '../episodes/store.js';
import type { EpisodeTask } from '../wire/episodes.js';
import type { McpSessionOptions } from '../mcp/limits.js';
import { keyCheck } from './auth.js';
import type { CoercionMode } from '../simulator/lax.js';
import type { UnknownArgumentsMode } from '../simulator/unknown-arguments.js';
import { defaultAllowedHosts, guardedListener, requestRefusal, type AllowedHosts } from './host-check.js';
import { nodeListener } from './node-listener.js';
import { episodeMetrics } from './episode-metrics.js';
import { openEnvSockets } from './openenv/upgrade.js';
import { CLOSE_GRACE_MS, DEFAULT_BODY_LIMIT, DEFAULT_HOST, DEFAULT_PORT, KEEP_ALIVE_TIMEOUT_MS } from './defaults.js';
import { retrievalLoader, type RetrievalOptions } from './context.js';
import { clusterListeners, type ClusterListeners } from './cluster/listeners.js';
import { idPrefix, injectionSeed, socketPath, type WorkerPlacement } from './cluster/placement.js';
import { takeConnections } from './cluster/handoff.js';
import { apiBaseUrl } from './rest/catalog.js';
import { API_ROOT_HEADER } from './rest/document.js';
import type { SecurityMode } from './rest/security.js';
import type { Upstream, UpstreamSettings } from '../simulator/upstream/upstream.js';

export { DEFAULT_HOST, DEFAULT_PORT };

export interface ServeOptions {
  /** Library directory (must hold tools.db). */
  library: string;
  /** Response cache: a SQLite file or a postgres:// URL; none when absent. */
  cache?: string;
  /** Default read-write; `off` opens no cache. */
  cacheMode?: CacheMode;
  /** Entries (canonical arguments + body) over this many bytes are answered but not cached; default 256 KiB. */
  cacheMaxEntryBytes?: number;
  /** Past this many bytes on disk the cache takes no new entries; default none. */
  cacheMaxBytes?: number;
  /** The Response layer, asked in order. */
  responders: readonly Responder[];
  /** More counters for /metrics (the model responders'). */
  metrics?: readonly { toPrometheus(): string }[];
  /** More routes (the model's `POST /v1/chat/completions`, the studio's runs). */
  routes?: readonly AppRoutes[];
  seed?: number;
  /** Injected-error rate; default the simulator's (0.05). */
  errorRate?: number;
  /** The Rule layer's treatment of undeclared arguments (default reject). */
  unknownArguments?: UnknownArgumentsMode;
  /** The Rule layer's treatment of wrongly typed values (default strict). */
  coercion?: CoercionMode;
  /** The real APIs: record, replay or pass through valid calls (`--upstream`). */
  upstream?: UpstreamSettings;
  apiKey?: string;
  bodyLimit?: number;
  maxBatch?: number;
  /** `--security`: the REST surface's check of declared security. */
  security?: SecurityMode;
  /** Live episodes at most (default: `episodeMaxBytes` over 16 KiB, 65,536). */
  maxEpisodes?: number;
  /** Idle time in milliseconds after which an episode is dropped (default 30 min). */
  episodeTtlMs?: number;
  /** Bytes of JSON all live episodes may hold together (default 1 GiB); past it creating one is answered 429. */
  episodeMaxBytes?: number;
  /** MCP session limits: live sessions at most, idle expiry. */
  mcp?: McpSessionOptions;
  /** Tasks an OpenEnv reset without one gets (AppOptions.openenvTasks). */
  openenvTasks?: readonly EpisodeTask[] | (() => Promise<readonly EpisodeTask[]>);
  /**
   * The local sentence encoder `POST /v1/search` uses for `retriever: dense` (and in `hybrid`); without it, dense is a
   * 400.
   */
  retrieval?: RetrievalOptions;
  /** The answer judge of R_ans: `openai:MODEL@URL`. */
  judge?: string;
  /** Its key, sent as `Authorization: Bearer KEY`. */
  judgeApiKey?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Host names answered (default: the loopback names on a loopback address, any otherwise); see host-check.ts. */
  allowedHosts?: AllowedHosts;
  /**
   * One API's REST surface at the root of a port of its own (`--api-port stripe.com=8081`), for SDKs that take a host
   * and port but hard-code their paths (stripe-node's `/v1/…`), or whose URL handling breaks on an api_id's `:`.
   * Port 0 picks a free one. Not with `worker` (a cluster's workers listen on no port of their own).
   */
  apiPorts?: readonly ApiPort[];
  /** Default 8080; 0 picks a free port. */
  port?: number;
  log?: (line: string) => void;
  /** Set in a `serve --workers N` worker: shares the port with its siblings and answers them on a private socket. */
  worker?: WorkerPlacement;
  /**
   * This server's number among replicas behind one proxy: episode, group and MCP session ids then carry `rN-` (after
   * a worker's `wI-`), so that the proxy routes every request about one to the replica that holds it.
   */
  replica?: number;
}

export interface ApiPort {
  apiId: string;
  port: number;
}

/** An `apiPorts` entry the server cannot serve: an API the library lacks. */
export class ApiPortError extends Error {}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  host: string;
  port: number;
  tools: number;
  /** Milliseconds startServer took: open the library and cache, build the app, listen. */
  startupMs: number;
  /** Where each `apiPorts` API is served at the root: api_id → `http://host:port`. */
  apiUrls: Record<string, string>;
  app: Hono;
  simulator: ToolSimulator;
  episodes: EpisodeStore;
  /**
   * Stops accepting, lets requests in flight finish (cut after CLOSE_GRACE_MS), then closes the cache and the library.
   */
  close(): Promise<void>;
}

/**
 * Opens the library (no record is parsed) and the response cache, builds the simulator and the app, and listens.
 * Everything opened is closed again if listening fails.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const store = LibraryStore.open(options.library);
  let cache: CacheBackend | undefined;
  let server: Server | undefined;
  let episodes: EpisodeStore | undefined;
  let internal: Server | undefined;
  let upstream: Upstream | undefined;
  const apiServers: Server[] = [];
  try {
    for (const { apiId } of options.apiPorts ?? []) {
      if (store.api(apiId) === undefined)
        throw new ApiPortError(`--api-port: the library has no API ${JSON.stringify(apiId)} (GET /apis lists them)`);
    }
    if (options.worker && (options.apiPorts?.length ?? 0) > 0)
      throw new ApiPortError(
        '--api-port cannot be served with --workers above 1: the workers listen on no port of their own',
      );
    if (options.upstream) {
      // Loaded only with --upstream: forwarding, its log and the base-URL matcher are most servers' dead weight.
      const { Upstream } = await import('../simulator/upstream/upstream.js');
      upstream = new Upstream({ ...options.upstream, documents: (apiId) => store.apiDocument(apiId) });
    }
    if (options.cache !== undefined)
      cache = await openResponseCache(options.cache, options.cacheMode, {
        maxEntryBytes: options.cacheMaxEntryBytes,
        maxBytes: options.cacheMaxBytes,
      });
    const simulator = createSimulator({
      store,
      cache,
      responders: options.responders,
      seed: options.seed,
      injectionSeed: options.worker ? injectionSeed(options.seed ?? 0, options.worker.index) : undefined,
      errorRate: options.errorRate,
      unknownArguments: options.unknownArguments,
      coercion: options.coercion,
      upstream,
    });
    const retrieval = retrievalLoader(store.dir, options.retrieval);
    const workerPrefix = options.worker ? idPrefix(options.worker.index) : '';
    const replicaPrefix = options.replica === undefined ? '' : `r${options.replica}-`;
    const prefix = `${workerPrefix}${replicaPrefix}` || undefined;
    let cluster: ClusterListeners | undefined;
    episodes = new EpisodeStore({
      idPrefix: prefix,
      simulator,
      library: store,
      // An episode's search waits for a lexical index being built rather than failing its step.
      search: () => retrieval().then((loaded) => loaded.lexicalReady()),
      maxEpisodes: options.maxEpisodes,
      ttlMs: options.episodeTtlMs,
      maxBytes: options.episodeMaxBytes,
    });
    const liveEpisodes = episodeMetrics(episodes);
    // Loaded only with --judge, as the judges requests name are.
    const judge =
      options.judge === undefined
        ? undefined
        : (await import('../rl/judge.js')).createAnswerJudge(options.judge, { apiKey: options.judgeApiKey });
    const { app, listener, openenv } = nodeListener({
      store,
      simulator,
      episodes,
      retrieval,
      mcp: { ...options.mcp, idPrefix: prefix },
      idPrefix: prefix,
      openenvTasks: options.openenvTasks,
      seed: options.seed ?? 0,
      judge,
      metrics: {
        toPrometheus: () =>
          [simulator.metrics, liveEpisodes, ...(options.metrics ?? []), ...(cluster ? [cluster.metrics] : [])]
            .map((m) => m.toPrometheus())
            .join(''),
      },
      routes: options.routes,
      apiKey: options.apiKey,
      bodyLimit: options.bodyLimit,
      maxBatch: options.maxBatch,
      security: options.security,
      log,
    });
    if (options.worker) {
      cluster = clusterListeners(options.worker, listener, options.bodyLimit ?? DEFAULT_BODY_LIMIT);
      internal = createServer(cluster.internal);
      await listenSocket(internal, socketPath(options.worker.socketDir, options.worker.index));
      process.once('exit', removeSocketOnExit(options.worker));
    }
    const host = options.host ?? DEFAULT_HOST;
    const allowedHosts = options.allowedHosts ?? defaultAllowedHosts(host);
    server = createServer(SERVER_OPTIONS, guardedListener(allowedHosts, cluster?.front ?? listener));
    server.on('clientError', answerClientError);
    server.on('connect', refuseConnect);
    // OpenEnv's sessions live on the connection the primary handed to this worker, with their episodes.
    const sockets = openEnvSockets(server, openenv!, {
      accepts: options.apiKey === undefined ? undefined : keyCheck(options.apiKey),
      maxPayload: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      admits: admitted(requestRefusal(allowedHosts)),
      log,
    });
    // A worker listens on no port: the primary hands it connections (cluster/handoff.ts).
    const taken = options.worker ? takeConnections(server) : undefined;
    const port = options.worker
      ? (options.worker.port ?? options.port ?? DEFAULT_PORT)
      : await listen(server, host, options.port ?? DEFAULT_PORT);
    const apiUrls: Record<string, string> = {};
    for (const { apiId, port: apiPort } of options.apiPorts ?? []) {
      const root = apiBaseUrl('', apiId);
      const apiServer = createServer(SERVER_OPTIONS, guardedListener(allowedHosts, apiRootListener(root, listener)));
      apiServer.on('clientError', answerClientError);
      apiServer.on('connect', refuseConnect);
      apiServers.push(apiServer);
      apiUrls[apiId] = hostUrl(host, await listen(apiServer, host, apiPort));
    }
    const bound = server;
    const boundInternal = internal;
    const boundEpisodes = episodes;
    const boundUpstream = upstream;
    const url = hostUrl(host, port);
    let closing: Promise<void> | undefined;
    return {
      url,
      host,
      port,
      tools: store.count(),
      startupMs: performance.now() - started,
      apiUrls,
      app,
      simulator,
      episodes,
      close: () => {
        if (closing) return closing;
        // Upgraded connections are no longer the server's to cut: their sessions are closed apart.
        sockets.close(CLOSE_GRACE_MS);
        taken?.stop();
        return (closing = Promise.all(
          [bound, ...(boundInternal ? [boundInternal] : []), ...apiServers].map(
            (open) =>
              new Promise<void>((resolve) => {
                // A worker's server never listened: its close resolves at once, so the connections it took are awaited.
                if (open === bound && taken)
                  void Promise.all([new Promise((closed) => open.close(closed)), taken.drained()]).then(() =>
                    resolve(),
                  );
                else open.close(() => resolve());
                // Requests in flight get a grace period; connections still open after it are cut.
                setTimeout(() => open.closeAllConnections(), CLOSE_GRACE_MS).unref();
              }),
          ),
        ).then(async () => {
          boundEpisodes.close();
          store.close();
          await boundUpstream?.close();
          return cache?.close();
        }));
      },
    };
  } catch (error) {
    server?.close();
    internal?.close();
    for (const apiServer of apiServers) apiServer.close();
    episodes?.close();
    await upstream?.close();
    await cache?.close();
    store.close();
    throw error;
  }
}

function hostUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * A port that serves one API's REST surface at its root: each request goes to the app under `/apis/{api_id}`, marked
 * so that the API's served document names this port's root as its server.
 */
function apiRootListener(root: string, listener: RequestListener): RequestListener {
  return (req, res) => {
    req.url = `${root}${req.url ?? '/'}`;
    req.headers[API_ROOT_HEADER] = '1';
    listener(req, res);
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`${host}:${port} is already in use; pick another --port`) : error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * A worker ending without closing (its primary went away, and node's cluster module ends it at once) removes its
 * socket, and the directory too once the primary is gone and no sibling's socket is left.
 */
function removeSocketOnExit(worker: WorkerPlacement): () => void {
  return () => {
    rmSync(socketPath(worker.socketDir, worker.index), { force: true });
    if (process.connected) return;
    try {
      rmdirSync(worker.socketDir);
    } catch {
      // A sibling's socket is still there: the last one out removes the directory.
    }
  };
}

/** A worker's private socket; one left by a crashed worker of the same index is replaced. */
function listenSocket(server: Server, path: string): Promise<void> {
  rmSync(path, { force: true });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // exclusive: in a cluster worker, listen would otherwise share the handle through the primary.
    server.listen({ path, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether an upgrade passes the guard; one that does not is answered as a plain request, by the guard. */
function admitted(refusal: ReturnType<typeof requestRefusal>): (request: IncomingMessage) => boolean {
  return (request) => refusal(request.headers) === undefined;
}

/**
 * Host is checked by the guard, which answers its absence with a problem rather than node's bare 400; idle
 * connections are kept past what clients keep them for (KEEP_ALIVE_TIMEOUT_MS).
 */
const SERVER_OPTIONS = { requireHostHeader: false, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS };

/**
 * Requests node's parser rejects (oversized headers, garbage) still get a problem+json answer before the socket closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // Bytes after an answer that said `Connection: close` (the unread body of a refused request): that answer stands.
  if (!socket.writable || error.code === 'HPE_CLOSED_CONNECTION') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  endWithProblem(
    socket,
    problem(status, undefined, `the request could not be parsed (${error.code ?? error.message})`),
  );
}

/** The methods any route takes; CONNECT is none of them. */
const ROUTE_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * CONNECT, which node hands to a `connect` listener rather than to the request listener: ToolEnv is no proxy, so it
 * is answered 405 like any other method no route takes (without a listener node would drop the connection unanswered).
 */
function refuseConnect(request: IncomingMessage, socket: Socket): void {
  const detail = `CONNECT ${request.url ?? ''}: this server is no proxy; GET /openapi.json describes it`;
  endWithProblem(socket, problem(405, undefined, detail, { allow: ROUTE_METHODS.split(', ') }), {
    allow: ROUTE_METHODS,
  });
}

/** Answers a problem on a raw socket and closes it: for what never reaches the request listener. */
function endWithProblem(socket: Socket, answer: Problem, headers: Record<string, string> = {}): void {
  const { status } = answer;
  const body = JSON.stringify(answer);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`,
  );
}
