/** `read-write` reads through and writes answers back; `read-only` only reads; `off` opens nothing. */
export type CacheMode = 'read-write' | 'read-only' | 'off';
export const CACHE_MODES: readonly CacheMode[] = ['read-write', 'read-only', 'off'];
