import { join } from 'node:path';

/**
 * Where one worker of a `serve --workers N` cluster stands: its index, how many there are, where their private sockets
 * live.
 */
export interface WorkerPlacement {
  index: number;
  count: number;
  /** A private directory (mode 0700) holding one unix socket per worker: `w0.sock`, `w1.sock`, … */
  socketDir: string;
  /** The port the cluster listens on, for a worker started again after `--port 0` picked one. */
  port?: number;
}

/** Environment variables the primary hands each worker. */
export const WORKER_ENV = {
  index: 'TOOLENV_WORKER_INDEX',
  count: 'TOOLENV_WORKER_COUNT',
  socketDir: 'TOOLENV_WORKER_SOCKETS',
  port: 'TOOLENV_WORKER_PORT',
} as const;

/** This process's placement when the primary forked it as a worker; undefined in a plain process. */
export function placementFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerPlacement | undefined {
  const index = env[WORKER_ENV.index];
  const count = env[WORKER_ENV.count];
  const socketDir = env[WORKER_ENV.socketDir];
  if (index === undefined || count === undefined || socketDir === undefined) return undefined;
  const port = env[WORKER_ENV.port];
  return {
    index: Number(index),
    count: Number(count),
    socketDir,
    ...(port === undefined ? {} : { port: Number(port) }),
  };
}

export function socketPath(socketDir: string, index: number): string {
  return join(socketDir, `w${index}.sock`);
}

/**
 * What every episode and MCP session id a worker makes starts with. Any worker can then tell, from an id alone,
 * which worker holds that episode in memory and pass the request there.
 */
export function idPrefix(index: number): string {
  return `w${index}-`;
}

/**
 * The seed of a worker's own injection stream: worker 0 draws from `--seed` itself (a one-worker cluster injects as a
 * plain server does), the others from seeds mixed from it and their index, so no two workers draw the same stream.
 */
export function injectionSeed(seed: number, index: number): number {
  if (index === 0) return seed;
  let z = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) >>> 0, 0x85ebca6b) ^ Math.imul(index, 0x9e3779b9);
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}
