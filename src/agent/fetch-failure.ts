/**
 * Why a fetch() failed, in a few words: undici only says "fetch failed" and keeps the reason in `cause` — a system
 * error's code and message (`connect ECONNREFUSED 127.0.0.1:9`, `getaddrinfo ENOTFOUND host`), one per address tried
 * (an AggregateError), or its own refusal (`bad port`).
 */
export function fetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const message =
      cause.message ||
      (cause instanceof AggregateError
        ? cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ')
        : '');
    if (typeof code === 'string') return message.includes(code) ? message : `${code}${message ? `: ${message}` : ''}`;
    if (message) return message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Codes of a kept-alive socket the server closed as the request went out: the request never reached it. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * fetch() of an idempotent request, sent once more when it met a stale kept-alive socket: after a long idle spell
 * (a training stage between two evaluations) the pooled connection may be one the server is closing.
 */
export async function fetchIdempotent(url: string | URL, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || !STALE_SOCKET.has(code)) throw error;
    return fetch(url, init);
  }
}
