import { fullFormats } from 'ajv-formats/dist/formats.js';
import { faker, REFERENCE_DATE, rng } from './faker.js';

/** Dates a field's name says lie ahead (`expires_at`), far back (`birthday`), or, by default, in the recent past. */
const FUTURE =
  /(?:^|_)(?:expires?|expiry|expiration|due|deadline|ends?|until|valid_to|scheduled|next|upcoming|renewal|renews|arrival|departure|checkout|forecast|forecasts)(?:_|$)/;
const BIRTH = /(?:^|_)(?:birthday|birthdate|birth|dob)(?:_|$)/;
const DAY_MS = 86_400_000;

/** A date for a field; `key` is its name key, prefixed by its holder's (`forecast_date` lies ahead). */
export function dateFor(key: string): Date {
  const ref = REFERENCE_DATE.getTime();
  if (BIRTH.test(key)) return new Date(ref - rng.int(18 * 365, 80 * 365) * DAY_MS - rng.int(0, DAY_MS - 1));
  if (FUTURE.test(key)) return new Date(ref + rng.int(1, 365) * DAY_MS + rng.int(0, DAY_MS - 1));
  return new Date(ref - rng.int(0, 3 * 365) * DAY_MS - rng.int(0, DAY_MS - 1));
}

/** RFC 3339 at whole seconds, the way most APIs print timestamps. */
export function dateTimeString(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function dateString(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function timeString(): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(rng.int(0, 23))}:${two(rng.int(0, 59))}:${two(rng.int(0, 59))}Z`;
}

function duration(): string {
  return rng.pick([
    `PT${rng.int(1, 59)}M`,
    `PT${rng.int(1, 23)}H${rng.int(1, 59)}M`,
    `P${rng.int(1, 30)}D`,
    `P${rng.int(1, 6)}DT${rng.int(1, 23)}H`,
  ]);
}

function base64(): string {
  const bytes = new Uint8Array(rng.int(6, 24));
  for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(0, 255);
  return Buffer.from(bytes).toString('base64');
}

function path(): string {
  return `/${faker.word.noun()}/${rng.int(1, 9999)}`;
}

/** A value for each standard string format; the field name chooses among dates (`expires_at` lies in the future). */
const GENERATORS: Record<string, (key: string) => string> = {
  date: (key) => dateString(dateFor(key)),
  'date-time': (key) => dateTimeString(dateFor(key)),
  'iso-date-time': (key) => dateTimeString(dateFor(key)),
  time: timeString,
  'iso-time': timeString,
  duration,
  email: () => faker.internet.email().toLowerCase(),
  'idn-email': () => faker.internet.email().toLowerCase(),
  uri: () => `${faker.internet.url({ appendSlash: false })}${path()}`,
  url: () => `${faker.internet.url({ appendSlash: false })}${path()}`,
  iri: () => `${faker.internet.url({ appendSlash: false })}${path()}`,
  'uri-reference': path,
  'iri-reference': path,
  'uri-template': () => `${faker.internet.url({ appendSlash: false })}/${faker.word.noun()}/{id}`,
  hostname: () => faker.internet.domainName(),
  'idn-hostname': () => faker.internet.domainName(),
  ipv4: () => faker.internet.ipv4(),
  ipv6: () => faker.internet.ipv6(),
  uuid: () => faker.string.uuid(),
  'json-pointer': () => `/${faker.word.noun()}/${rng.int(0, 9)}`,
  'json-pointer-uri-fragment': () => `#/${faker.word.noun()}/${rng.int(0, 9)}`,
  'relative-json-pointer': () => `${rng.int(0, 3)}/${faker.word.noun()}`,
  regex: () => rng.pick(['^[a-z0-9_-]{3,16}$', '^\\d{4}-\\d{2}-\\d{2}$', '^[A-Z]{2}$', '^\\S+@\\S+$']),
  byte: base64,
};

/**
 * Other spellings of a value in `format`, for schemas that also constrain its length or pattern: timestamps with
 * milliseconds or a numeric offset (a `minLength: 24` asks for `…:07.123Z`), upper-case uuids.
 */
export function formatVariants(format: string, value: string): string[] {
  if ((format === 'date-time' || format === 'iso-date-time') && value.endsWith('Z')) {
    const base = value.slice(0, -1);
    const millis = String(rng.int(0, 999)).padStart(3, '0');
    return [`${base}.${millis}Z`, `${base}+00:00`, `${base}.${millis}+00:00`, `${base}.${millis}000Z`, base];
  }
  if (format === 'uuid') return [value.toUpperCase()];
  if (format === 'time' && value.endsWith('Z')) return [`${value.slice(0, -1)}+00:00`, value.slice(0, -1)];
  return [];
}

/** Whether `format` is one the synthesizer writes values in (and so a string format). */
export function hasFormat(format: string): boolean {
  return Object.hasOwn(GENERATORS, format);
}

/**
 * A string in `format`, or undefined for formats that do not constrain (password, binary) or that ajv does not know.
 */
export function formatString(format: string, key: string): string | undefined {
  return hasFormat(format) ? GENERATORS[format]!(key) : undefined;
}

type Check = (value: string) => boolean;
const CHECKS = new Map<string, Check>();
for (const [name, format] of Object.entries(fullFormats)) {
  const validate = typeof format === 'object' && !(format instanceof RegExp) ? format.validate : format;
  // OpenAPI's numeric formats and the unconstrained ones pass anything (as createAjv configures them).
  if (['int32', 'int64', 'float', 'double', 'password', 'binary', 'byte'].includes(name)) continue;
  if (validate instanceof RegExp) CHECKS.set(name, (value) => validate.test(value));
  else if (typeof validate === 'function') CHECKS.set(name, validate as Check);
}

/** Whether a string satisfies `format` as the project's ajv checks it (unknown formats always pass). */
export function formatOk(format: string, value: string): boolean {
  const check = CHECKS.get(format);
  return check === undefined || check(value);
}
