import type { Worker } from 'node:cluster';
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problem } from '../../simulator/problem.js';

/** What the primary sends with a connection's socket, and what the worker answers once it holds it. */
const CONNECTION = 'toolenv-connection';
const ACCEPTED = 'toolenv-accepted';

interface ConnectionMessage {
  type: typeof CONNECTION | typeof ACCEPTED;
  id: number;
}

/**
 * The primary's side of handing connections to workers in turn. Node's own round robin keeps a socket it has sent
 * until the worker acknowledges it and forgets it when the worker dies first: a worker busy or stopped when it was
 * sent, then killed, left the client waiting forever. Here the primary keeps every socket until its worker says it
 * holds it, and answers those of a worker that died with a 503 problem (Retry-After: 1); a connection the worker
 * already held closes with the worker, which the client sees at once.
 */
export class ConnectionHandoff {
  private readonly workers: (Worker | undefined)[] = [];
  private readonly unacknowledged = new Map<Worker, Map<number, Socket>>();
  /** Connections that came while no worker was ready, handed out as soon as one is. */
  private readonly waiting: Socket[] = [];
  private next = 0;
  private sequence = 0;

  /** A worker that listens takes connections from now on, in slot `index`; its death is answered for. */
  add(index: number, worker: Worker): void {
    this.workers[index] = worker;
    const held = new Map<number, Socket>();
    this.unacknowledged.set(worker, held);
    worker.on('message', (message: Partial<ConnectionMessage>) => {
      if (message?.type !== ACCEPTED || message.id === undefined) return;
      // The worker has its own descriptor now: the primary's copy is closed without shutting the connection down.
      held.get(message.id)?.destroy();
      held.delete(message.id);
    });
    // 'close' rather than 'exit': it comes after every message the worker sent, its last acknowledgements included.
    worker.process.once('close', () => {
      if (this.workers[index] === worker) this.workers[index] = undefined;
      this.unacknowledged.delete(worker);
      for (const socket of held.values()) unavailable(socket);
      held.clear();
    });
    while (this.waiting.length > 0) this.take(this.waiting.shift()!);
  }

  /** Hands a new connection (paused, unread) to the next worker that can take it. */
  take(socket: Socket): void {
    const worker = this.pick();
    if (!worker) {
      this.waiting.push(socket);
      socket.once('close', () => this.waiting.splice(this.waiting.indexOf(socket) >>> 0, 1));
      return;
    }
    const id = this.sequence++;
    this.unacknowledged.get(worker)!.set(id, socket);
    worker.send(
      { type: CONNECTION, id } satisfies ConnectionMessage,
      socket,
      { keepOpen: true },
      (error: Error | null) => {
        if (!error) return;
        // Gone between the pick and the send: another worker takes it.
        this.unacknowledged.get(worker)?.delete(id);
        this.take(socket);
      },
    );
  }

  /** Answers the connections no worker took yet: the cluster is stopping. */
  close(): void {
    for (const socket of this.waiting.splice(0)) unavailable(socket);
  }

  private pick(): Worker | undefined {
    for (let tried = 0; tried < this.workers.length; tried++) {
      const index = (this.next + tried) % this.workers.length;
      const worker = this.workers[index];
      if (worker?.isConnected()) {
        this.next = index + 1;
        return worker;
      }
    }
    return undefined;
  }
}

/** A worker's side of the handoff: stop taking connections, and when the ones taken have all closed. */
export interface TakenConnections {
  stop(): void;
  /** Resolves once every connection taken so far has closed. */
  drained(): Promise<void>;
}

/** Connections the primary hands over are served by `server`, each acknowledged as soon as it arrives. */
export function takeConnections(server: HttpServer): TakenConnections {
  let open = 0;
  let onDrained: (() => void) | undefined;
  const onMessage = (message: Partial<ConnectionMessage>, socket: Socket | undefined) => {
    if (message?.type !== CONNECTION || message.id === undefined || !socket) return;
    process.send?.({ type: ACCEPTED, id: message.id } satisfies ConnectionMessage);
    open++;
    socket.once('close', () => {
      if (--open === 0) onDrained?.();
    });
    server.emit('connection', socket);
    socket.resume();
  };
  process.on('message', onMessage);
  return {
    stop: () => process.off('message', onMessage),
    drained: () => (open === 0 ? Promise.resolve() : new Promise((resolve) => (onDrained = resolve))),
  };
}

/**
 * The answer for a connection whose worker died before it took it: the request was never read, so it may be retried.
 */
function unavailable(socket: Socket): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(
    problem(503, 'Worker unavailable', 'the worker this connection was handed to died before it took it; retry'),
  );
  socket.end(
    `HTTP/1.1 503 ${STATUS_CODES[503]}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
}
