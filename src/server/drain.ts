import type { IncomingMessage } from 'node:http';

/** Bytes of a refused body read and dropped before its answer; past them the connection is closed instead. */
export const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
/** A refused body that pauses this long is not waited for (a client that waits for the answer mid-body). */
export const DRAIN_IDLE_MS = 1_000;

/**
 * Reads the rest of a refused request body and drops it: true once it has ended; false once more than
 * MAX_DRAIN_BYTES came, none came for DRAIN_IDLE_MS, or the client went away. The refusal waits for it: a server
 * that answers and closes while the client is still writing resets the connection, and the client sees EPIPE or
 * ECONNRESET instead of the answer (node closes after any answer to a request sent with `Connection: close`).
 */
export function drainBody(incoming: IncomingMessage): Promise<boolean> {
  if (incoming.readableEnded) return Promise.resolve(true);
  if (incoming.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    let idle = setTimeout(() => finish(false), DRAIN_IDLE_MS);
    const finish = (whole: boolean) => {
      clearTimeout(idle);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      if (!whole) incoming.pause();
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_DRAIN_BYTES) return finish(false);
      clearTimeout(idle);
      idle = setTimeout(() => finish(false), DRAIN_IDLE_MS);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(false);
    // As node drops an unread body (IncomingMessage._dump): a reader that stopped (a web stream over a chunked body
    // hono's limit cut short) would otherwise pause the body again at every chunk.
    incoming.removeAllListeners('data');
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('close', onClose);
    incoming.resume();
  });
}
