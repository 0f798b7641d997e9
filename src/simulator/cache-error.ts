/**
 * A missing, unreadable or read-only response cache; apart from the store so that the CLI can recognise it without
 * loading SQLite.
 */
export class CacheError extends Error {}
