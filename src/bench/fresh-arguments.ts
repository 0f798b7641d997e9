/** Distinct argument objects the fresh-argument workload can number: far more than any run sends. */
const CAPACITY = 2 ** 40;

/**
 * Fresh arguments number `n` (0 ≤ n < 2^40): the last letters and digits of the arguments' strings (the same
 * positions for every n, from the end) replaced by n's digits in each character's own class (digit, lower case,
 * upper case), so different n never give equal arguments and a pattern of character classes still holds; an
 * integer met first takes what is left of n as an offset.
 */
export function freshArguments(args: Record<string, unknown>, n: number): Record<string, unknown> {
  let rest = n;
  let capacity = 1;
  const vary = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const chars = [...value];
      for (let i = chars.length - 1; i >= 0 && capacity < CAPACITY; i--) {
        const code = chars[i]!.charCodeAt(0);
        const [base, zero] =
          code >= 48 && code <= 57
            ? [10, 48]
            : code >= 97 && code <= 122
              ? [26, 97]
              : code >= 65 && code <= 90
                ? [26, 65]
                : [0, 0];
        if (base === 0) continue;
        chars[i] = String.fromCharCode(zero + (rest % base));
        rest = Math.floor(rest / base);
        capacity *= base;
      }
      return chars.join('');
    }
    if (Number.isSafeInteger(value) && capacity < CAPACITY) {
      const varied = (value as number) + rest;
      rest = 0;
      capacity = CAPACITY;
      return varied;
    }
    if (Array.isArray(value)) return value.map(vary);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, vary(v)]));
    return value;
  };
  const varied = vary(args) as Record<string, unknown>;
  if (rest > 0 || capacity < CAPACITY)
    throw new Error(`the arguments ${JSON.stringify(args).slice(0, 200)} have too few letters and digits to vary`);
  return varied;
}
