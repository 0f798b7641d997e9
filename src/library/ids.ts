import { createHash } from 'node:crypto';

export const MAX_ID_LENGTH = 64;
const VALID_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidId(id: string): boolean {
  return VALID_ID.test(id);
}

/** Lowercase-preserving slug of [A-Za-z0-9_-]: other runs of characters become one '_'. */
export function slug(text: string): string {
  return (
    text
      .normalize('NFKD')
      // NFKD splits "Ñ" into "N" and a combining tilde: drop the marks so that it reads "N", not "N_".
      .replace(/\p{M}+/gu, '')
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^[_-]+|[_-]+$/g, '')
  );
}

export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * A valid tool id from readable parts joined by '__'. When the result is too long, it is cut and a hash of
 * `stableKey` (the source's own identity: api id + method + path, or the original name) is appended, so the
 * id stays stable across rebuilds and distinct for distinct keys.
 */
export function makeId(parts: string[], stableKey: string): string {
  const joined = parts.map(slug).filter(Boolean).join('__') || 'tool';
  if (joined.length <= MAX_ID_LENGTH) return joined;
  const hash = shortHash(stableKey);
  return `${joined.slice(0, MAX_ID_LENGTH - hash.length - 1).replace(/[_-]+$/, '')}_${hash}`;
}

/** Makes `id` unique against `taken` by appending a hash of `stableKey`; records the result in `taken`. */
export function uniqueId(id: string, stableKey: string, taken: Set<string>): string {
  let candidate = id;
  for (let salt = 0; taken.has(candidate); salt++) {
    const hash = shortHash(salt === 0 ? stableKey : `${stableKey}#${salt}`);
    candidate = `${id.slice(0, MAX_ID_LENGTH - hash.length - 1).replace(/[_-]+$/, '')}_${hash}`;
  }
  taken.add(candidate);
  return candidate;
}
