import cluster, { type Worker } from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLOSE_GRACE_MS } from '../defaults.js';
import { ConnectionHandoff } from './handoff.js';
import { socketPath, WORKER_ENV } from './placement.js';

/** What a worker sends the primary once it listens. */
export interface ReadyMessage {
  type: 'toolenv-ready';
  url: string;
  tools: number;
}

/**
 * What a worker that cannot start sends the primary instead of printing it: its siblings fail the same way, and the
 * primary prints the first one's reason once.
 */
export interface FailedMessage {
  type: 'toolenv-failed';
  /** What the CLI would have printed on stderr. */
  text: string;
}

/** What the primary sends a worker to close gracefully and exit. */
export const SHUTDOWN_MESSAGE = { type: 'toolenv-shutdown' } as const;

/** A worker that dies this many times within RESTART_WINDOW_MS stops the cluster: it would only die again. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 1000;
/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 100;

export interface ClusterOptions {
  workers: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
  log: (line: string) => void;
}

export interface RunningCluster {
  /**
   * Resolves once every worker listens (undefined when closed first); rejects with WorkerStartError when one exits
   * first (the others are stopped).
   */
  ready: Promise<{ url: string; tools: number } | undefined>;
  /** Resolves if the cluster stops on its own: a worker that keeps dying. */
  failed: Promise<Error>;
  close(): Promise<void>;
}

/** A worker that exited before it listened. */
export class WorkerStartError extends Error {
  constructor(
    readonly index: number,
    readonly exitCode: number,
    /** The signal that ended it, if one did. */
    readonly signal: string | null = null,
    /** Why, as the worker told the primary (a FailedMessage); undefined when it died without telling. */
    readonly report?: string,
  ) {
    super(`worker ${index} exited with ${signal ? `signal ${signal}` : `code ${exitCode}`} before it listened`);
  }
}

/**
 * The primary of `serve --workers N`: listens on the port, forks N workers running this same command line (each
 * opens the library and the cache), hands them connections in turn (handoff.ts), reports when all are ready, and
 * restarts a worker that dies. Episodes live in their worker's memory: one that dies loses its episodes.
 * Returns at once, so that the caller can take signals while the workers start.
 */
export function startCluster(options: ClusterOptions): RunningCluster {
  const socketDir = mkdtempSync(join(tmpdir(), 'toolenv-'));
  // Also when the primary ends without closing (an uncaught error); a signal's default action skips this, hence the
  // callers' handlers.
  const removeSockets = () => rmSync(socketDir, { recursive: true, force: true });
  process.once('exit', removeSockets);
  if (socketPath(socketDir, options.workers - 1).length > MAX_SOCKET_PATH) {
    removeSockets();
    throw new Error(
      `the temporary directory ${tmpdir()} makes worker socket paths too long; set TMPDIR to a shorter path`,
    );
  }
  const slots: Worker[] = [];
  const listening = new WeakSet<Worker>();
  const restarts: number[] = [];
  const pending = new Set<NodeJS.Timeout>();
  let closing = false;
  let giveUp: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => (giveUp = resolve));

  const handoff = new ConnectionHandoff();
  let front: Server | undefined;
  // The port the primary bound, which the workers report in their URLs.
  let port = String(options.port);
  const fork = (index: number): Promise<ReadyMessage> => {
    const worker = cluster.fork({
      [WORKER_ENV.index]: String(index),
      [WORKER_ENV.count]: String(options.workers),
      [WORKER_ENV.socketDir]: socketDir,
      [WORKER_ENV.port]: port,
    });
    slots[index] = worker;
    // A worker that goes away while the primary writes to it (a shutdown racing its own SIGTERM) is no error.
    worker.on('error', () => {});
    return new Promise((resolve, reject) => {
      let report: string | undefined;
      // 'close' rather than 'exit': it comes after every message the worker sent, its FailedMessage included.
      const onClose = (code: number | null, signal: string | null) =>
        reject(new WorkerStartError(index, code ?? (signal ? 1 : 0), signal, report));
      worker.process.once('close', onClose);
      worker.on('message', (message: Partial<ReadyMessage | FailedMessage>) => {
        if (message?.type === 'toolenv-failed') report = message.text;
        if (message?.type !== 'toolenv-ready') return;
        worker.process.off('close', onClose);
        listening.add(worker);
        handoff.add(index, worker);
        worker.once('exit', (code, signal) => restart(index, worker, code, signal));
        resolve(message as ReadyMessage);
      });
    });
  };

  const restart = (index: number, worker: Worker, code: number | null, signal: string | null) => {
    if (closing) return;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (restarts.length > MAX_RESTARTS) {
      giveUp(
        new Error(
          `workers died ${restarts.length} times within ${RESTART_WINDOW_MS / 1000} s (last: ` +
            `worker ${index}, ${how}); stopping`,
        ),
      );
      return;
    }
    options.log(
      `toolenv: worker ${index} (pid ${worker.process.pid}) exited with ${how}; its episodes are lost; restarting it`,
    );
    // Not unref'd: with every worker gone, this timer is what keeps the primary alive to restart them.
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (closing) return;
      fork(index).then(
        () => options.log(`toolenv: worker ${index} is back (pid ${slots[index]?.process.pid})`),
        (error: Error) => {
          if (error instanceof WorkerStartError && error.report) options.log(error.report);
          restart(index, slots[index]!, error instanceof WorkerStartError ? error.exitCode : 1, null);
        },
      );
    }, RESTART_DELAY_MS);
    pending.add(timer);
  };

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      closing = true;
      for (const timer of pending) clearTimeout(timer);
      front?.close();
      handoff.close();
      // One still starting has no handler for the shutdown message yet, and nothing to lose.
      await Promise.all(slots.map((worker) => (listening.has(worker) ? stopWorker(worker) : killWorker(worker))));
      removeSockets();
      process.off('exit', removeSockets);
    })());

  const ready = listenFront(options.host, options.port, (socket) => handoff.take(socket))
    .then((server) => {
      front = server;
      port = String((server.address() as { port: number }).port);
      if (closing) server.close();
      return closing ? undefined : Promise.all(Array.from({ length: options.workers }, (_, index) => fork(index)));
    })
    .then(
      (messages) => (messages ? { url: messages[0]!.url, tools: messages[0]!.tools } : undefined),
      async (error: unknown) => {
        await stop();
        throw error;
      },
    );
  return { ready, failed, close: stop };
}

/** The cluster's port, its connections left unread (paused) for the worker that takes them. */
function listenFront(host: string, port: number, take: (socket: Socket) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({ pauseOnConnect: true }, take);
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`${host}:${port} is already in use; pick another --port`) : error),
    );
    server.listen(port, host, () => resolve(server));
  });
}

function killWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.process.kill('SIGKILL');
  });
}

/** Asks a worker to close gracefully; one that has not exited after the grace period is killed. */
function stopWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), CLOSE_GRACE_MS + 2000);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    const terminate = () => worker.process.kill('SIGTERM');
    if (!worker.isConnected()) terminate();
    else worker.send(SHUTDOWN_MESSAGE, (error: Error | null) => error && terminate());
  });
}
