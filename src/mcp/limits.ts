/** MCP session limits, apart from the SDK so that the CLI and the app can name them without loading it. */

export const DEFAULT_MAX_SESSIONS = 1000;
/** Idle time after which a session is closed: the episode store's default idle expiry, so both clocks agree. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface McpSessionOptions {
  /** Live sessions at most (default 1,000); an initialize beyond it is a 429 problem. */
  maxSessions?: number;
  /** A session idle this long is closed, and the episode it opened ended (default 30 min). */
  idleMs?: number;
  /** Milliseconds now (default Date.now): tests move it to expire sessions. */
  clock?: () => number;
  /** Starts every session id (a cluster worker's `w1-`, which tells the other workers where the session lives). */
  idPrefix?: string;
}
