import { CacheError } from './cache-error.js';
import { CACHE_MODES, type CacheMode } from './cache-mode.js';
import type { CacheOptions, CacheBackend } from './cache-types.js';

/** Whether a --cache value names a PostgreSQL database (postgres:// or postgresql://) rather than a SQLite file. */
function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Opens the response cache a --cache value names, in a mode: undefined for `off`, so callers simply have no cache.
 * Each back-end is loaded only when named (pg is not loaded for a SQLite file, nor better-sqlite3 for a database).
 */
export async function openResponseCache(
  location: string,
  mode: CacheMode = 'read-write',
  options: Omit<CacheOptions, 'mode'> = {},
): Promise<CacheBackend | undefined> {
  if (!CACHE_MODES.includes(mode))
    throw new CacheError(`cache mode must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  if (mode === 'off') return undefined;
  if (isPostgresUrl(location)) {
    const { PostgresCache } = await import('./cache-postgres.js');
    return PostgresCache.open(location, { ...options, mode });
  }
  const { openCache } = await import('./cache.js');
  return openCache(location, mode, options);
}
