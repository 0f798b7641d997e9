import { RE2JS } from 're2js';
import safeRegex from 'safe-regex2';

/**
 * RE2 refuses repeat counts above 1000 (`{0,1023}` in AWS ARN patterns). Lowering the bound only narrows what the
 * pattern matches, so a string the lowered pattern accepts the real one accepts too.
 */
const RE2_MAX_REPEAT = 1000;
const HUGE_REPEAT = /\{(\d+),(\d{4,})\}/g;

/** The longest string a pattern RE2 cannot run is tried on natively: backtracking stays in the millions of steps. */
const RISKY_LENGTH = 20;

function isSafe(source: string): boolean {
  try {
    return safeRegex(source);
  } catch {
    return false;
  }
}

/**
 * A pattern's test, safe from catastrophic backtracking: spec patterns like `^(https?:\/\/)?([\da-z.-]+)\.([a-z.]{2,6})([\/\w .-]*)*\/?$`
 * take minutes on a string they do not match. Patterns safe-regex2 passes run natively; others run on RE2JS, which
 * matches in linear time; the few RE2 cannot read (lookarounds, back-references) run natively on short strings only
 * and count as not matching longer ones. `toString` is the source, which ajv uses to share compiled patterns.
 */
export class SafePattern {
  readonly test: (value: string) => boolean;
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
    if (isSafe(source)) {
      this.test = (value) => native.test(value);
      return;
    }
    try {
      const linear = RE2JS.compile(RE2JS.translateRegExp(source.replace(HUGE_REPEAT, (_, min: string) => `{${Math.min(Number(min), RE2_MAX_REPEAT)},${RE2_MAX_REPEAT}}`)));
      this.test = (value) => linear.test(value);
    } catch {
      this.test = (value) => value.length <= RISKY_LENGTH && native.test(value);
    }
  }

  toString(): string {
    return `/${this.source}/u`;
  }
}
