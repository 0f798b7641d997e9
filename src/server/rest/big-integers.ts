/**
 * Integers past int64 read exactly. JSON.parse and Number() read `9223372036854775808` as the double 2^63, which
 * a bound check then takes for int64's largest value: the raw text is compared as a BigInt instead.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

/** Strings (skipped whole) and integer literals of 16 digits or more, the first length a double may round. */
const LONG_INTEGERS = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+])-?\d{16,}(?![\d.eE])/g;

/** Whether the decimal integer `text` lies outside int64 (or int32 when `format` says so). */
export function outOfIntegerRange(text: string, format?: unknown): boolean {
  const value = BigInt(text);
  return format === 'int32' ? value < INT32_MIN || value > INT32_MAX : value < INT64_MIN || value > INT64_MAX;
}

/**
 * JSON text with each integer literal outside int64 written as a string of its digits, so that the parsed value keeps
 * them exactly and an integer parameter refuses it ("must be integer") rather than accepting a rounded double.
 */
export function quoteLongIntegers(text: string): string {
  return text.replace(LONG_INTEGERS, (token) =>
    token.startsWith('"') || !outOfIntegerRange(token) ? token : `"${token}"`,
  );
}
