const keys = new Map<string, string>();

/**
 * A field name as lower-case words joined by `_`: `userId`, `user_id`, `user-id`, `UserID` and `User ID` all become
 * `user_id`. Memoized: the same few thousand names recur on every call.
 */
export function nameKey(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    key = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
    if (keys.size < 50_000) keys.set(name, key);
  }
  return key;
}

/** Name keys of a record's own identifier (Twilio's is its `sid`): always there, never null. */
export const ID_KEYS: ReadonlySet<string> = new Set(['id', 'sid', 'uuid', 'guid']);

/** A path segment as a name key, less a file extension (Twilio's `Messages.json` is `messages`). */
export function segmentKey(segment: string): string {
  return nameKey(segment.replace(/\.(?:json|xml|csv|yaml)$/i, ''));
}

/** The name key of a path's last literal segment (`pets` of `/pets/{petId}`): the noun its operation is about. */
export function pathNoun(path: string): string | undefined {
  const segments = path.split('/').filter((segment) => segment && !segment.startsWith('{'));
  const noun = segments[segments.length - 1];
  return noun ? segmentKey(noun) : undefined;
}

/** The singular of a plural field name, for naming the items of an array (`categories` → `category`). */
export function singular(key: string): string {
  if (/ies$/.test(key)) return `${key.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z|status|address)es$/.test(key)) return key.slice(0, -2);
  if (/[^su]s$/.test(key)) return key.slice(0, -1);
  return key;
}

/** The last word of a key (`created_at` → `at`). */
export function lastWord(key: string): string {
  const at = key.lastIndexOf('_');
  return at < 0 ? key : key.slice(at + 1);
}
