import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';

/** Seconds of Retry-After on a 429 that has no better estimate: caps free up as clients finish, so soon. */
export const DEFAULT_RETRY_AFTER = '1';

export interface ProblemInit {
  /** Fixed title of this kind of problem; defaults to the reason phrase of the status. */
  title?: string;
  headers?: Record<string, string>;
  /** Extra members of the body (`allow`, `limit`…). */
  extra?: Record<string, unknown>;
}

/** The server's own errors: an RFC 7807 body with the problem+json content type. */
export function problemResponse(status: number, detail: string, init: ProblemInit = {}): Response {
  return new Response(JSON.stringify(problem(status, init.title, detail, init.extra)), {
    status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...init.headers },
  });
}

/** A problem to throw from deep inside a handler; the app's error handler answers with it. */
export function httpProblem(status: ContentfulStatusCode, detail: string, init: ProblemInit = {}): HTTPException {
  return new HTTPException(status, { res: problemResponse(status, detail, init), message: detail });
}
