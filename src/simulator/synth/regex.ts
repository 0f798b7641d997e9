import type randexp from 'randexp';
import { faker, rng } from './faker.js';
import { SafePattern } from '../../library/safe-pattern.js';
import { lazyRequire } from '../../lazy-require.js';

// randexp is CommonJS exporting the class itself, while its typings describe an ES module's default export. Loaded
// with the first pattern drawn (it and its parser are 25 files a server start need not read).
const loadRandExp = lazyRequire<typeof randexp.default>('randexp');
type RandExp = randexp.default;

interface Compiled {
  /** The pattern's test (as ajv reads it, with the `u` flag); undefined when it is not a valid pattern at all. */
  test: SafePattern | undefined;
  /** randexp's generator, or undefined when randexp cannot parse the pattern. */
  gen: RandExp | undefined;
}

const compiled = new Map<string, Compiled>();
const MAX_PATTERNS = 20_000;

// randexp does not know Unicode property escapes; for generating (never for checking) a letter or digit class stands
// in.
const PROPERTY_ESCAPES: [RegExp, string][] = [
  [/\\p\{(?:Lu|Uppercase_Letter|Uppercase)\}/g, '[A-Z]'],
  [/\\p\{(?:Ll|Lowercase_Letter|Lowercase)\}/g, '[a-z]'],
  [/\\p\{(?:L|Letter|Lt|Lm|Lo|Alphabetic|Alpha)\}/g, '[a-zA-Z]'],
  [/\\p\{(?:N|Nd|Number|Digit)\}/g, '[0-9]'],
  [/\\[pP]\{[^}]*\}/g, '[a-z]'],
  // Nor lookbehinds (dropped: the result is checked against the real pattern) or named groups.
  [/\(\?<[=!][^()]*\)/g, ''],
  [/\(\?<[A-Za-z_][A-Za-z0-9_]*>/g, '(?:'],
];

/** Wide bounded repetitions (`{1,1011}`) are drawn near their minimum: randexp spends microseconds per character. */
const WIDE_REPEAT = /\{(\d+),(\d+)\}/g;
const REPEAT_SPAN = 8;

/** A hex class admitting both cases (`[0-9a-fA-F]`, any order): vendors write hex in lower case (Twilio's `SM…`). */
const EITHER_CASE_HEX = /\[(?:0-9|a-f|A-F){3}\]/g;
const lowerHex = (whole: string) =>
  whole.includes('a-f') && whole.includes('A-F') && whole.includes('0-9') ? '[0-9a-f]' : whole;

function generationSource(pattern: string): string {
  const plain = PROPERTY_ESCAPES.reduce((source, [from, to]) => source.replace(from, to), pattern).replace(
    EITHER_CASE_HEX,
    lowerHex,
  );
  return plain.replace(WIDE_REPEAT, (whole, min: string, max: string) =>
    Number(max) - Number(min) > REPEAT_SPAN ? `{${min},${Number(min) + REPEAT_SPAN}}` : whole,
  );
}

function compile(pattern: string): Compiled {
  let entry = compiled.get(pattern);
  if (entry) return entry;
  let test: SafePattern | undefined;
  try {
    test = new SafePattern(pattern);
  } catch {
    test = undefined;
  }
  let gen: RandExp | undefined;
  try {
    gen = new (loadRandExp())(generationSource(pattern));
    gen.randInt = (min: number, max: number) => rng.int(min, max);
    // randexp rebuilds a character class's ranges for every character it draws; the parsed tokens never change.
    const expand = gen._expand.bind(gen);
    const expanded = new Map<object, ReturnType<RandExp['_expand']>>();
    gen._expand = (token) => {
      let ranges = expanded.get(token);
      if (!ranges) expanded.set(token, (ranges = expand(token)));
      return ranges;
    };
  } catch {
    gen = undefined;
  }
  entry = { test, gen };
  if (compiled.size >= MAX_PATTERNS) compiled.clear();
  compiled.set(pattern, entry);
  return entry;
}

/** Whether `value` matches `pattern` as ajv checks it; a pattern that does not compile matches nothing. */
export function matches(pattern: string, value: string): boolean {
  const test = compile(pattern).test;
  return test?.test(value) ?? false;
}

const REPEATS: ((repeat: number) => number)[] = [
  (r) => r,
  (r) => r,
  (r) => Math.min(r, 1),
  () => 0,
  (r) => r * 2,
  (r) => r * 4,
];

/**
 * A string matching `pattern` whose length fits, drawn with randexp from the synthesizer's stream; undefined after a
 * few tries that all missed (lookarounds and back-references can defeat it). `repeat` caps open repetitions (`+`, `*`).
 */
export function fromPattern(
  pattern: string,
  fits: (value: string) => boolean,
  repeat: number,
  minLength = 0,
): string | undefined {
  const { gen, test } = compile(pattern);
  if (!gen || !test) return undefined;
  for (let attempt = 0; attempt < REPEATS.length; attempt++) {
    // Open repetitions (`+`, `{12,}`) go up to `repeat` more, then none more (tight maxLength), then further.
    gen.max = REPEATS[attempt]!(repeat);
    const value = gen.gen();
    if (test.test(value) && fits(value)) return value;
    // A pattern open at the end (`^[a-z]`) still matches once letters are added to reach the minimum length.
    if (value.length < minLength) {
      const padded = value + faker.string.alpha({ length: minLength - value.length, casing: 'lower' });
      if (test.test(padded) && fits(padded)) return padded;
    }
  }
  return undefined;
}
