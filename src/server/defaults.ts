/** Server defaults, apart from the server so that `serve --help` can show them without loading it. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** How long closing lets requests in flight finish before their connections are cut. */
export const CLOSE_GRACE_MS = 5000;
/**
 * How long an idle keep-alive connection stays open. node's 5 s is what trainers' HTTP clients keep idle connections
 * for (httpx's pool: 5 s; aiohttp: 15 s) and shorter than the model's turn between two requests of an episode, so the
 * server closed connections a client was reusing; and a server whose event loop stalls past it (a major GC with tens
 * of thousands of live episodes, a loaded machine) closes connections whose next request sits unread in the socket,
 * which resets them (ECONNRESET). Past 60 s, as proxies' idle timeouts are, so a client or proxy closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
