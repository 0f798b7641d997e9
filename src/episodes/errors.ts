import type { FieldError } from '../wire/schema-errors.js';

export type { FieldError } from '../wire/schema-errors.js';

export type EpisodeErrorStatus = 400 | 403 | 404 | 409 | 429;

const TITLES: Record<EpisodeErrorStatus, string> = {
  400: 'Invalid episode request',
  403: 'Tool not in episode',
  404: 'Unknown episode',
  409: 'Episode done',
  429: 'Too many episodes',
};

/**
 * Every refusal of the episode store, with the HTTP status it maps to: the HTTP routes, MCP and in-process callers
 * all see the same error. `errors` lists the wrong members of a 400.
 */
export class EpisodeError extends Error {
  readonly title: string;

  constructor(
    readonly status: EpisodeErrorStatus,
    message: string,
    readonly errors?: FieldError[],
    title?: string,
  ) {
    super(message);
    this.name = 'EpisodeError';
    this.title = title ?? TITLES[status];
  }
}

/** A 400 listing every wrong member, its message naming the first ones. */
/** `status`: 404 where the body is well formed and only names what the server lacks (a tool, a category). */
export function invalidRequest(what: string, errors: FieldError[], status: 400 | 404 = 400): EpisodeError {
  const listed = errors
    .slice(0, 3)
    .map((e) => `${e.path || '(body)'} ${e.message}`)
    .join('; ');
  return new EpisodeError(
    status,
    `invalid ${what}: ${listed}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`,
    errors,
    status === 404 ? 'Unknown tool' : undefined,
  );
}

/** The 404 of an episode id the store does not hold. */
export function unknownEpisode(id: string, ttlMs: number): EpisodeError {
  return new EpisodeError(
    404,
    `no episode ${JSON.stringify(id)}: it never existed, was deleted, or expired after ${ttlMs / 1000} s idle`,
  );
}
