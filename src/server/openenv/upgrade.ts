import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type * as Ws from 'ws';
import { KEY_HEADER, type KeyCheck } from '../auth.js';
import { routedPath } from '../cluster/owner.js';
import type { OpenEnv } from './env.js';
import { OpenEnvSession } from './session.js';
import { lazyRequire } from '../../lazy-require.js';

const wsPackage = lazyRequire<typeof Ws>('ws');

/** Where OpenEnv's client opens its session: `<base_url>/ws`, base_url being the server's `/openenv`. */
export const OPENENV_WS_PATH = '/openenv/ws';

/** A close code: the server is going away. */
const GOING_AWAY = 1001;

export interface OpenEnvSocketOptions {
  /** Whether the request's Authorization or x-toolenv-key carries the API key; absent when the server needs none. */
  accepts?: KeyCheck;
  /**
   * Whether the request passes the server's Host and Origin checks; one that does not is answered as a plain request.
   */
  admits?: (request: IncomingMessage) => boolean;
  /** Largest message in bytes (the server's body limit): a larger frame closes the connection (1009). */
  maxPayload: number;
  log: (line: string) => void;
}

export interface OpenEnvSockets {
  /** Closes every session (1001), cutting the connections still open after `graceMs`. */
  close(graceMs: number): void;
}

/**
 * WebSocket sessions on node's server, beside the app: `GET /openenv/ws` with `Upgrade: websocket` (and the API key,
 * when the server has one) becomes an OpenEnvSession; the `ws` package makes the handshake and the framing. In a
 * cluster a session stays on the worker its connection reached, as its episode does.
 *
 * Node hands every request that asks for an upgrade to the 'upgrade' listener, not the request listener. Any other
 * (another protocol, such as curl's h2c; another path; no API key) is parsed again without its Upgrade header, which
 * a server may ignore (RFC 9110 §7.8), so that the server answers it as usual, body and keep-alive included.
 */
export function openEnvSockets(server: Server, env: OpenEnv, options: OpenEnvSocketOptions): OpenEnvSockets {
  // Made on the first session: a server nobody opens one on never loads ws.
  let sessions: Ws.WebSocketServer | undefined;
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const session =
      (options.admits?.(request) ?? true) &&
      request.method === 'GET' &&
      request.headers.upgrade?.toLowerCase() === 'websocket' &&
      routedPath(request.url ?? '/') === OPENENV_WS_PATH;
    if (
      !session ||
      (options.accepts && !options.accepts(request.headers.authorization, headerText(request.headers[KEY_HEADER])))
    ) {
      socket.unshift(Buffer.concat([withoutUpgrade(request), head]));
      server.emit('connection', socket);
      return;
    }
    sessions ??= new (wsPackage().WebSocketServer)({ noServer: true, maxPayload: options.maxPayload });
    sessions.handleUpgrade(request, socket, head, (ws) => new OpenEnvSession(env, ws, options.log));
  });
  return {
    close(graceMs) {
      const open = sessions?.clients ?? new Set<Ws.WebSocket>();
      for (const ws of open) ws.close(GOING_AWAY, 'server closing');
      setTimeout(() => {
        for (const ws of open) ws.terminate();
      }, graceMs).unref();
    },
  };
}

/** The request's head as it came (header bytes are latin1 strings in node), less the Upgrade header. */
function withoutUpgrade(request: IncomingMessage): Buffer {
  const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() !== 'upgrade') lines.push(`${raw[i]}: ${raw[i + 1]}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
