/**
 * Why a fetch() failed, in a few words: undici only says "fetch failed" and keeps the reason in `cause` — a system
 * error's code and message (`connect ECONNREFUSED 127.0.0.1:9`, `getaddrinfo ENOTFOUND host`), one per address tried
 * (an AggregateError), or its own refusal (`bad port`).
 */
export function fetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const message = cause.message || (cause instanceof AggregateError ? cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ') : '');
    if (typeof code === 'string') return message.includes(code) ? message : `${code}${message ? `: ${message}` : ''}`;
    if (message) return message;
  }
  return error instanceof Error ? error.message : String(error);
}
