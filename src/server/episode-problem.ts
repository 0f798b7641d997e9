import type { EpisodeError } from '../episodes/errors.js';
import { DEFAULT_RETRY_AFTER, problemResponse } from '../http/problem-response.js';

/** An EpisodeError as problem+json: its status and title, and `errors` when it lists wrong members. */
export function episodeProblem(error: EpisodeError): Response {
  // A cap frees up as episodes finish or expire: a client retries after a moment, as after any 429.
  const headers = error.status === 429 ? { 'retry-after': DEFAULT_RETRY_AFTER } : undefined;
  return problemResponse(error.status, error.message, {
    title: error.title,
    headers,
    extra: error.errors ? { errors: error.errors } : undefined,
  });
}
