import { HTTPException } from 'hono/http-exception';
import { EpisodeError } from '../episodes/errors.js';
import { ResponderBusyError } from '../simulator/queue.js';
import { problemResponse } from '../http/problem-response.js';
import { episodeProblem } from './episode-problem.js';

/**
 * The status a request is counted under when its client went away before it was read (nginx's "client closed request").
 */
export const CLIENT_CLOSED = 499;

export const INTERNAL_ERROR_DETAIL = 'the server failed to answer this request; the error is in its log';

/**
 * The answer to an error thrown while answering a request: problems thrown on purpose are answered as they are, the
 * episode store's refusals and a full model queue as their problems, a client gone mid-body as 499, and anything
 * else is logged and answered 500.
 */
export function errorResponse(error: unknown, request: string, log: (line: string) => void): Response {
  if (error instanceof HTTPException) return error.getResponse();
  if (error instanceof EpisodeError) return episodeProblem(error);
  if (error instanceof ResponderBusyError) {
    return problemResponse(503, error.message, {
      title: 'Simulator busy',
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    });
  }
  // A client that went away mid-body is nobody's failure, and nobody reads the answer: counted apart, not logged.
  if (clientGone(error))
    return problemResponse(CLIENT_CLOSED, 'the client closed the connection before its request was read', {
      title: 'Client closed request',
    });
  log(`toolenv: ${request}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return problemResponse(500, INTERNAL_ERROR_DETAIL);
}

/** The errors a request body's read fails with when its client disconnects: node's own, or @hono/node-server's. */
function clientGone(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    ((error as NodeJS.ErrnoException).code === 'ECONNRESET' && error.message === 'aborted') ||
    error.message === 'Client connection prematurely closed.'
  );
}
