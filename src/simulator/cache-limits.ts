/**
 * The size rule of the response cache: an answer whose entry — canonical arguments plus body JSON, in UTF-8 bytes —
 * is over the limit is answered but not stored (a 1 MB argument would otherwise add megabytes per call, and the
 * in-process LRU would hold a handful of entries). Imports store what they are given.
 */
export const DEFAULT_MAX_ENTRY_BYTES = 256 * 1024;

export function entryBytes(canonicalArgs: string, bodyText: string): number {
  return Buffer.byteLength(canonicalArgs) + Buffer.byteLength(bodyText);
}
