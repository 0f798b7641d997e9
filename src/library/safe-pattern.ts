import type { RE2JS } from 're2js';
import { lazyRequire } from '../lazy-require.js';
import { linearNatively } from './pattern-screen.js';

/** RE2JS (260 KB of code), loaded with the first pattern the native engine cannot be trusted with. */
const loadRe2 = lazyRequire<typeof import('re2js')>('re2js');

/**
 * Upper bounds above this are read as unbounded on the linear engine (`{1,1024}` as `{1,}`): RE2JS's automaton grows
 * with the bound (`[\w.-]{1,1024}$` took 0.4 s on 3,000 characters; RE2 refuses bounds above 1000 outright), and
 * the pattern read so accepts a superset, so a valid value is never refused.
 */
const MAX_BOUND = 64;
const BOUNDED_REPEAT = /\{(\d+),(\d+)\}/g;

/**
 * A pattern RE2 cannot read is run natively, exactly, on strings up to this long: backtracking stays in the millions of
 * steps.
 */
const RISKY_LENGTH = 20;

/** Which engine a pattern runs on; see SafePattern. */
export type PatternEngine = 'native' | 'linear' | 'bounded';

/**
 * A pattern's test that no input can make take more than linear time. Spec patterns backtrack exponentially
 * (`^(https?:\/\/)?([\da-z.-]+)\.([a-z.]{2,6})([\/\w .-]*)*\/?$` takes minutes) or polynomially
 * (`^[a-z0-9]+[a-z0-9-\.]+[a-z0-9]+$` is cubic: seconds on 3,000 characters) on strings they do not match.
 * - `native`: patterns linear by construction on a backtracking engine (pattern-screen.ts), the common simple ones.
 * - `linear`: every other pattern RE2 can read runs on RE2JS, linear in time.
 * - `bounded`: the few RE2 cannot read (look-arounds, back-references) run natively on strings up to RISKY_LENGTH;
 *   a longer string is tested on RE2JS against the pattern without its look-arounds, which accepts a superset:
 *   a rule layer that lets a rare odd value through is better than one that refuses valid long values. What even
 *   that cannot read (a back-reference outside a look-around) accepts long strings.
 * `toString` is the source, which ajv uses to share compiled patterns.
 */
export class SafePattern {
  readonly test: (value: string) => boolean;
  readonly engine: PatternEngine;
  private readonly source: string;

  /** Throws, as `new RegExp` does, when the pattern is not a valid JavaScript pattern. */
  constructor(source: string) {
    this.source = source;
    let native: RegExp;
    try {
      native = new RegExp(source, 'u');
    } catch {
      native = new RegExp(source);
    }
    if (linearNatively(source)) {
      this.engine = 'native';
      this.test = (value) => native.test(value);
      return;
    }
    const linear = re2(source);
    if (linear) {
      this.engine = 'linear';
      this.test = (value) => linear.test(value);
      return;
    }
    this.engine = 'bounded';
    const relaxed = re2(withoutLookarounds(source));
    this.test = (value) => (value.length <= RISKY_LENGTH ? native.test(value) : relaxed ? relaxed.test(value) : true);
  }

  toString(): string {
    return `/${this.source}/u`;
  }
}

/** The pattern compiled by RE2JS, or undefined when RE2 cannot read it. */
function re2(source: string): RE2JS | undefined {
  const translated = source
    .replace(BOUNDED_REPEAT, (repeat, min: string, max: string) => (Number(max) > MAX_BOUND ? `{${min},}` : repeat))
    // A property JavaScript knows and RE2 does not.
    .replaceAll('\\p{ASCII}', '[\\x00-\\x7F]');
  const { RE2JS } = loadRe2();
  try {
    return RE2JS.compile(RE2JS.translateRegExp(translated));
  } catch {
    return undefined;
  }
}

/** The pattern with every look-ahead and look-behind group removed: zero-width assertions, so it matches a superset. */
export function withoutLookarounds(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    if (
      source.startsWith('(?=', i) ||
      source.startsWith('(?!', i) ||
      source.startsWith('(?<=', i) ||
      source.startsWith('(?<!', i)
    ) {
      i = groupEnd(source, i);
      continue;
    }
    const next = tokenEnd(source, i);
    out += source.slice(i, next);
    i = next;
  }
  return out;
}

/** The index after the group opening at `start` (its closing parenthesis matched, escapes and classes skipped). */
function groupEnd(source: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < source.length) {
    const char = source[i];
    if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i + 1;
    i = tokenEnd(source, i);
  }
  return source.length;
}

/** The index after one token at `i`: an escape, a whole character class, or one character. */
function tokenEnd(source: string, i: number): number {
  if (source[i] === '\\') return Math.min(i + 2, source.length);
  if (source[i] !== '[') return i + 1;
  let j = i + 1;
  while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
  return Math.min(j + 1, source.length);
}
