/**
 * How a server reaches the real APIs (`serve --upstream`): `record` forwards each valid call and stores the real
 * answer in the cache (source `real`); `replay` answers only what was recorded; `passthrough` forwards and stores
 * nothing.
 */
export const UPSTREAM_MODES = ['record', 'replay', 'passthrough'] as const;
export type UpstreamMode = (typeof UPSTREAM_MODES)[number];

/** How long a forwarded call may take before it is answered 504; `--upstream-timeout`. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/** The cache entries' source for answers of a real API (recorded, or imported from a corpus). */
export const REAL_SOURCE = 'real';
