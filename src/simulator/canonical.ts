/**
 * Canonical JSON: the cache key of a call's arguments. Object keys are sorted recursively (by UTF-16 code units,
 * as RFC 8785 does), there is no whitespace, and everything else is what JSON.stringify writes — so -0 becomes 0,
 * numbers take their shortest round-trip form, and strings are not Unicode-normalized ("é" precomposed and
 * decomposed are different keys, as they are different requests to a real API). Members whose value is undefined
 * are dropped, as JSON.stringify drops them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    const items = value.map((item) =>
      item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item),
    );
    return `[${items.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}
