/** Server defaults, apart from the server so that `serve --help` can show them without loading it. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** How long closing lets requests in flight finish before their connections are cut. */
export const CLOSE_GRACE_MS = 5000;
