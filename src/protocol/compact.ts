/**
 * Compact JSON for observations: long arrays, strings and wide objects cut structurally (the result stays valid
 * JSON, so a model can still read indexes and field names off it), tighter and tighter until it fits the budget.
 */

interface Limits {
  items: number;
  chars: number;
  keys: number;
  depth: number;
}

const LEVELS: Limits[] = [
  { items: 5, chars: 200, keys: 24, depth: 6 },
  { items: 3, chars: 80, keys: 12, depth: 4 },
  { items: 2, chars: 40, keys: 8, depth: 3 },
  { items: 1, chars: 20, keys: 4, depth: 2 },
];

/** `value` as JSON of at most `maxChars` characters (the last resort is a plain cut ending in `…`). */
export function compactJson(value: unknown, maxChars: number): string {
  const whole = JSON.stringify(value) ?? 'null';
  if (whole.length <= maxChars) return whole;
  for (const limits of LEVELS) {
    const text = JSON.stringify(shrink(value, limits, 0)) ?? 'null';
    if (text.length <= maxChars) return text;
  }
  const text = JSON.stringify(shrink(value, LEVELS.at(-1)!, 0)) ?? 'null';
  return `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

function shrink(value: unknown, limits: Limits, depth: number): unknown {
  if (typeof value === 'string') return value.length > limits.chars ? `${value.slice(0, limits.chars)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= limits.depth) return Array.isArray(value) ? `[${value.length} items]` : '{…}';
  if (Array.isArray(value)) {
    const kept = value.slice(0, limits.items).map((v) => shrink(v, limits, depth + 1));
    return value.length > limits.items ? [...kept, `…${value.length - limits.items} more`] : kept;
  }
  const entries = Object.entries(value);
  const kept = entries.slice(0, limits.keys).map(([k, v]) => [k, shrink(v, limits, depth + 1)]);
  if (entries.length > limits.keys) kept.push(['…', `${entries.length - limits.keys} more fields`]);
  return Object.fromEntries(kept);
}
