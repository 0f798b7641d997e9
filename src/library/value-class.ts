/**
 * A small classifier of JSON values by what they look like: what `toolenv fidelity --examples` compares between a
 * vendor's documented example and the simulator's answer, and what the value prior (prior/) counts per field. The
 * classes are checked in the order of VALUE_CLASSES' groups below; the field's name only decides whether a
 * number (or a string of digits) in the range of Unix times is a timestamp.
 */
export const VALUE_CLASSES = [
  'null',
  'boolean',
  /** A whole number (1.0 reads as 1: JSON does not tell them apart). */
  'integer',
  'float',
  /** Seconds or milliseconds since 1970 between 2000 and 2035, in a field whose name speaks of time. */
  'unix_timestamp',
  'empty',
  'uuid',
  'email',
  'url',
  /** A path or a relative reference: `/v1/users/42`. */
  'path',
  'ip',
  'datetime',
  'date',
  'time',
  /** Digits, maybe signed or with a decimal part: `"12345"`, `"19.99"`. */
  'numeric_string',
  'phone',
  /** An ISO 4217 code as the runtime knows them: `USD`. */
  'currency_code',
  /** Two capital letters: `US`, `DE`. */
  'country_code',
  /** Hexadecimal of 16 characters or more, digits and letters both: a hash, a Mongo id, a token. */
  'hash',
  /** A lower-case prefix word, `_` or `-`, then 6 or more characters with a digit: `cus_9s6XKzkNRiz8i3`. */
  'vendor_id',
  /** Letters and digits of 12 or more characters, both kinds present: an opaque id or key. */
  'opaque_id',
  /** Upper-case letters, digits and `_`, a letter among them: `ACTIVE`, `SUCCEEDED`, `A1`. */
  'constant',
  /** Short letters-and-digits with both kinds: `abc123`, `v2`. */
  'alphanumeric',
  /** One token of letters (`_`, `-`, `'` and `.` within): `active`, `in_progress`, `Paris`. */
  'word',
  /** Two to five words. */
  'phrase',
  /** Six words or more, or ending in `.`, `!` or `?`. */
  'sentence',
  /** Any other string. */
  'text',
] as const;
export type ValueClass = (typeof VALUE_CLASSES)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const PATH = /^\/[^\s]*$/;
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?$/;
const IPV6 = /^[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?:\/\d{1,3})?$/i;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const NUMERIC = /^-?\d+(?:\.\d+)?$/;
const PHONE = /^\+?\(?\d[\d\s().-]{5,18}\d$/;
const HEX = /^[0-9a-f]{16,}$/i;
const VENDOR_ID = /^([a-z][a-z0-9]{0,11}(?:_[a-z][a-z0-9]{0,11})?)[_-]([A-Za-z0-9]{6,})$/;
const OPAQUE = /^[A-Za-z0-9_-]{12,}$/;
const CONSTANT = /^[A-Z0-9_]*[A-Z][A-Z0-9_]*$/;
const ALNUM = /^[A-Za-z0-9]+$/;
const WORD = /^\p{L}[\p{L}\p{M}_'.-]*$/u;
/** Names of fields holding times (as nameKey writes them: lower-case words joined by `_`). */
const TIME_KEY = /(?:^|_)(?:at|on|time|times|timestamp|ts|date|created|updated|modified|expires?|expiry|since|until)$/;

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const SECONDS = [946_684_800, 2_051_222_400] as const;
const hasDigit = (text: string) => /\d/.test(text);
const hasLetter = (text: string) => /[a-z]/i.test(text);

/** Whether a number (seconds or milliseconds) lies between 2000 and 2035. */
function unixRange(n: number): boolean {
  const seconds = n >= SECONDS[0] * 1000 ? n / 1000 : n;
  return Number.isInteger(n) && seconds >= SECONDS[0] && seconds < SECONDS[1];
}

/**
 * The class of a scalar; `key` is the field's name key (see nameKey), or '' when unknown. Objects and arrays
 * have none (undefined): they are containers, compared by their keys and items.
 */
export function valueClass(value: unknown, key = ''): ValueClass | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      if (TIME_KEY.test(key) && unixRange(value)) return 'unix_timestamp';
      return Number.isInteger(value) ? 'integer' : 'float';
    case 'string':
      return stringClass(value, key);
    default:
      return undefined;
  }
}

function stringClass(text: string, key: string): ValueClass {
  const value = text.trim();
  if (value === '') return 'empty';
  if (UUID.test(value)) return 'uuid';
  if (EMAIL.test(value)) return 'email';
  if (URL.test(value)) return 'url';
  if (DATETIME.test(value)) return 'datetime';
  if (DATE.test(value)) return 'date';
  if (TIME.test(value)) return 'time';
  if (IPV4.test(value) || (value.includes(':') && IPV6.test(value) && hasDigit(value))) return 'ip';
  if (NUMERIC.test(value)) return TIME_KEY.test(key) && unixRange(Number(value)) ? 'unix_timestamp' : 'numeric_string';
  if (PATH.test(value)) return 'path';
  if (PHONE.test(value) && value.replace(/\D/g, '').length >= 7) return 'phone';
  if (value.length === 3 && CURRENCIES.has(value)) return 'currency_code';
  if (/^[A-Z]{2}$/.test(value)) return 'country_code';
  if (HEX.test(value) && hasDigit(value) && hasLetter(value)) return 'hash';
  const vendor = VENDOR_ID.exec(value);
  if (vendor && hasDigit(vendor[2]!)) return 'vendor_id';
  if (OPAQUE.test(value) && hasDigit(value) && hasLetter(value)) return 'opaque_id';
  if (CONSTANT.test(value)) return 'constant';
  if (ALNUM.test(value) && hasDigit(value)) return 'alphanumeric';
  if (WORD.test(value)) return 'word';
  const words = value.split(/\s+/);
  if (words.length >= 6 || /[.!?]$/.test(value)) return 'sentence';
  if (words.length >= 2 && words.every((word) => /\p{L}/u.test(word))) return 'phrase';
  return 'text';
}

/** The prefix of a vendor id (`cus` of `cus_9s6XKzkNRiz8i3`), with its separator; undefined for anything else. */
export function idPrefix(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = VENDOR_ID.exec(value.trim());
  if (!match || !hasDigit(match[2]!)) return undefined;
  return value.trim().slice(0, match[1]!.length + 1);
}
