import { describedString } from './described.js';
import { faker, rng } from './faker.js';
import { jsonType, lengthOf, numberFits, stringFits } from './fits.js';
import type { Flat, JsonType } from './flat.js';
import { formatString, formatVariants, hasFormat } from './formats.js';
import { fromPattern } from './regex.js';
import { bestEffort, echoFor, fieldContext, NOTHING, type Site, type Walk } from './site.js';
import { withTerms } from './echo.js';
import { outOfUse } from './flags.js';
import { singular } from './names.js';
import { modalClass } from '../prior/prior.js';
import { ownEntry, priorEntry, priorNumber, priorString } from './prior-values.js';
import {
  formatHintString,
  namedNumber,
  namedString,
  namedVariants,
  plainString,
  trueChance,
  type NumberHint,
} from './values.js';

/**
 * How often a field repeats one of its schema's own examples rather than a fresh value (lists would look cloned
 * otherwise).
 */
const EXAMPLE_CHANCE = 0.3;
const DEFAULT_INTEGER: NumberHint = { min: 1, max: 1000, decimals: 0 };
const DEFAULT_NUMBER: NumberHint = { min: 0, max: 1000, decimals: 2 };
const LOOSE_INTEGER: NumberHint = { min: -1000, max: 1000, decimals: 0 };
const LOOSE_NUMBER: NumberHint = { min: -1000, max: 1000, decimals: 3 };
const FRACTIONAL = /^(?:float|double|decimal)$/i;
const DATE_LIKE = /(?:^|_)(?:at|date|time|timestamp|datetime|created|updated|modified)$/;
const BOOLEAN_LIKE = /^(?:is|has|can|should|allow|allows|enable|include|includes|use|show|was|did|does)_/;

function example(flat: Flat): unknown {
  return flat.examples.length > 0 && rng.chance(EXAMPLE_CHANCE) ? rng.pick(flat.examples) : undefined;
}

export function booleanFor(flat: Flat, site: Site, walk: Walk): boolean {
  if (site.taken?.size === 1) return !site.taken.has('true');
  if (walk.loose) return rng.chance(0.5);
  const echoed = echoFor(site, walk);
  if (typeof echoed === 'boolean') return echoed;
  // A resource read by its id exists and is in use, whatever the spec's example says.
  if (walk.echo.reads && site.inRecord && !site.inList && outOfUse(site.key)) return false;
  const sample = example(flat);
  if (typeof sample === 'boolean') return sample;
  return rng.chance(trueChance(site.key));
}

/** The type of a value whose schema names none (`{}`): the echoed value's, else what the field name suggests. */
export function guessType(site: Site, walk: Walk): JsonType {
  const echoed = echoFor(site, walk);
  if (echoed !== undefined) return jsonType(echoed);
  if (site.key === '') return 'object';
  if (BOOLEAN_LIKE.test(site.key)) return 'boolean';
  const hint = namedNumber(site.key);
  if (hint && !DATE_LIKE.test(site.key)) return hint.decimals ? 'number' : 'integer';
  return 'string';
}

const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};

export function numberFor(flat: Flat, integer: boolean, site: Site, walk: Walk): number | typeof NOTHING {
  let hint = integer ? LOOSE_INTEGER : LOOSE_NUMBER;
  if (!walk.loose) {
    const ok = (value: unknown): value is number => typeof value === 'number' && numberFits(value, flat, integer);
    const echoed = echoFor(site, walk);
    const echoNumber = typeof echoed === 'string' && /^-?\d+(?:\.\d+)?$/.test(echoed) ? Number(echoed) : echoed;
    if (ok(echoNumber)) return echoNumber;
    const sample = example(flat);
    if (ok(sample)) return sample;
    const named = namedNumber(site.key);
    const entry = walk.prior && priorEntry(walk.prior, site.parent, site.key);
    // Other APIs' values are held to the range the name implies (documents carry placeholders); the API's own, to a
    // firm range only (its `created_time` may be 0, its `total_watch_time` a count).
    const bounded = named && (named.firm || !entry || !ownEntry(entry));
    const sane = (n: number) => numberFits(n, flat, integer) && (!bounded || (n >= named.min && n <= named.max));
    const documented = entry && priorNumber(entry, integer, sane);
    if (documented !== undefined) return documented;
    // A `number` whose format does not say fractional is mostly whole in the vendors' examples (four in five).
    hint = named ?? (integer || !flat.formats.some((f) => FRACTIONAL.test(f)) ? DEFAULT_INTEGER : DEFAULT_NUMBER);
  }
  const value = drawNumber(flat, integer, hint);
  // Bounds that cross (minimum above maximum) admit nothing; a required number still comes, at the minimum.
  return value === NOTHING ? bestEffort(walk, flat.minimum ?? flat.exclusiveMinimum ?? hint.min) : value;
}

/** A number within the schema's bounds, inside the field's typical range where the two overlap. */
function drawNumber(flat: Flat, integer: boolean, hint: NumberHint): number | typeof NOTHING {
  let lo = flat.minimum ?? -Infinity;
  let loOpen = false;
  if (flat.exclusiveMinimum !== undefined && flat.exclusiveMinimum >= lo) [lo, loOpen] = [flat.exclusiveMinimum, true];
  let hi = flat.maximum ?? Infinity;
  let hiOpen = false;
  if (flat.exclusiveMaximum !== undefined && flat.exclusiveMaximum <= hi) [hi, hiOpen] = [flat.exclusiveMaximum, true];
  if (integer) {
    lo = loOpen ? Math.floor(lo) + 1 : Math.ceil(lo);
    hi = hiOpen ? Math.ceil(hi) - 1 : Math.floor(hi);
    loOpen = hiOpen = false;
  }
  if (lo > hi || (lo === hi && (loOpen || hiOpen))) return NOTHING;
  let a = Math.max(lo, hint.min);
  let b = Math.min(hi, hint.max);
  if (a > b) {
    const span = Math.max(hint.max - hint.min, 10);
    if (Number.isFinite(lo) && Number.isFinite(hi)) [a, b] = [lo, hi];
    else if (Number.isFinite(lo)) [a, b] = [lo, lo + span];
    else [a, b] = [hi - span, hi];
  }
  if (flat.multipleOf.length) return drawMultiple(flat, integer, [a, b], [lo, hi]);
  for (let attempt = 0; attempt < 4; attempt++) {
    let value: number;
    if (integer) {
      const [first, end] = [Math.ceil(a), Math.floor(b)];
      value = first <= end ? Math.min(end, first + Math.floor(rng.next() * (end - first + 1))) : first;
    } else {
      const raw = a + rng.next() * (b - a);
      const rounded = round(raw, hint.decimals);
      value = numberFits(rounded, flat, false) ? rounded : raw;
    }
    if (numberFits(value, flat, integer)) return value;
  }
  const middle = Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : (a + b) / 2;
  return numberFits(middle, flat, integer) ? middle : NOTHING;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** A multiple of every `multipleOf` (as ajv tests it: the quotient must print as an integer) within the bounds. */
function drawMultiple(
  flat: Flat,
  integer: boolean,
  [a, b]: [number, number],
  [lo, hi]: [number, number],
): number | typeof NOTHING {
  const divisors = flat.multipleOf;
  let step = Math.max(...divisors);
  if (divisors.every(Number.isInteger)) {
    const lcm = divisors.reduce((x, y) => (x / gcd(x, y)) * y);
    if (lcm < 1e15) step = lcm;
  }
  const fitting = (k: number) => {
    for (const value of [k * step, Number((k * step).toPrecision(15)), Number((k * step).toPrecision(12))]) {
      if (numberFits(value, flat, integer)) return value;
    }
    return undefined;
  };
  let kLo = Math.ceil(a / step);
  let kHi = Math.floor(b / step);
  if (kLo > kHi) [kLo, kHi] = [Math.ceil(lo / step), Math.floor(hi / step)];
  if (!Number.isFinite(kLo) && !Number.isFinite(kHi)) [kLo, kHi] = [0, 10];
  else if (!Number.isFinite(kLo)) kLo = kHi - 10;
  else if (!Number.isFinite(kHi)) kHi = kLo + 10;
  if (kLo > kHi) return NOTHING;
  for (let attempt = 0; attempt < 8; attempt++) {
    const value = fitting(rng.int(kLo, kHi));
    if (value !== undefined) return value;
  }
  for (let k = kLo; k <= Math.min(kHi, kLo + 64); k++) {
    const value = fitting(k);
    if (value !== undefined) return value;
  }
  return NOTHING;
}

function sliceCodePoints(value: string, length: number): string {
  return lengthOf(value) === value.length ? value.slice(0, length) : Array.from(value).slice(0, length).join('');
}

/** A token of letters and digits (an id, a code): padded in kind, since words after it would make it a phrase. */
const TOKEN = /^[A-Za-z0-9]+$/;

/**
 * Cuts a string down to `max` code points or pads it up to `min`: a token with characters like its own (a fixed-length
 * id stays one id), anything else with words.
 */
function fitLength(value: string, min: number, max: number): string {
  let out = value;
  if (lengthOf(out) > max) {
    out = sliceCodePoints(out, max);
    const trimmed = out.trimEnd();
    if (lengthOf(trimmed) >= min) out = trimmed;
  }
  if (lengthOf(out) < min && TOKEN.test(out)) {
    const alphabet = /^\d+$/.test(out) ? '0123456789' : out === out.toLowerCase() ? LOWER_TOKEN : MIXED_TOKEN;
    out += faker.string.fromCharacters(alphabet, min - out.length);
  }
  for (let words = 0; lengthOf(out) < min; words++) {
    out += words < 64 ? `${out ? ' ' : ''}${faker.word.sample()}` : 'x'.repeat(min - lengthOf(out));
  }
  return lengthOf(out) > max ? sliceCodePoints(out, max) : out;
}

const LOWER_TOKEN = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED_TOKEN = `ABCDEFGHIJKLMNOPQRSTUVWXYZ${LOWER_TOKEN}`;

/** A value in `format` that also passes `ok` (its length, its pattern), trying the format's other spellings. */
function fromFormat(format: string, key: string, ok: (value: string) => boolean): string | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    const value = formatString(format, key)!;
    if (ok(value)) return value;
    const variant = formatVariants(format, value).find(ok);
    if (variant !== undefined) return variant;
  }
  return undefined;
}

const FALLBACK_ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz',
  'abcdefghijklmnopqrstuvwxyz0123456789',
  '0123456789',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
];

/**
 * Plain letters or digits of a fitting length: what a pattern randexp cannot draw from (lookarounds) often still takes.
 */
function plainFallback(min: number, max: number, ok: (value: string) => boolean): string | undefined {
  const length = Math.min(Math.max(min, 8), max);
  for (const alphabet of FALLBACK_ALPHABETS) {
    const value = faker.string.fromCharacters(alphabet, length);
    if (ok(value)) return value;
  }
  return undefined;
}

/**
 * A page link where the path from the API's base does not fit: the same link on the API's server. Twilio answers its
 * `next_page_uri` relative, but its document declares `format: uri`, and answers are held to the document.
 */
function onServer(value: string, walk: Walk): string | undefined {
  const server = walk.echo.page?.server;
  return value.startsWith('/') && server ? `${server}${value}` : undefined;
}

/**
 * Digits for a string field whose name counts or measures (`UncompressedSize`, `frame_width`): vendors send such
 * numbers as strings too. Undefined for names of times, which have their own string rules.
 */
function countString(key: string): string | undefined {
  const hint = DATE_LIKE.test(key) ? undefined : namedNumber(key);
  return hint && String(Math.round(hint.min + rng.next() * (hint.max - hint.min)));
}

/**
 * The id of a record of an API whose records' ids are their paths, as its own examples show them (Azure's
 * `/subscriptions/…/watchers/w1`): the path the request addressed, or for a listed record the listing's path and a
 * name below it. Undefined elsewhere.
 */
function pathId(site: Site, walk: Walk): string | undefined {
  const { path, resourceId, listing } = walk.echo;
  if (site.key !== 'id' || !site.inRecord || walk.prior === undefined || path === undefined) return undefined;
  if (site.inList ? !listing : resourceId === undefined) return undefined;
  const entry = priorEntry(walk.prior, site.parent, site.key);
  if (!entry || !ownEntry(entry) || modalClass(entry) !== 'path') return undefined;
  return site.inList ? `${path}/${faker.word.noun()}${rng.int(1, 9)}` : path;
}

/** Whether a word names the record a field is in: its holder, or a noun of the request's path. */
const nounOf = (word: string, site: Site, walk: Walk) =>
  word === site.parent ||
  word === singular(site.parent) ||
  walk.echo.resources.has(word) ||
  walk.echo.collections.has(word);

export function stringFor(flat: Flat, site: Site, walk: Walk): string | typeof NOTHING {
  const ok = (value: unknown): value is string => typeof value === 'string' && stringFits(value, flat);
  const context = fieldContext(site);
  let named: string | undefined;
  if (!walk.loose) {
    const path = pathId(site, walk);
    if (path !== undefined && ok(path)) return path;
    const echoed = echoFor(site, walk);
    const echoString = typeof echoed === 'number' ? String(echoed) : echoed;
    if (ok(echoString)) return echoString;
    if (site.search !== undefined) {
      const found = withTerms(namedString(context) ?? plainString(), site.search);
      if (ok(found)) return found;
    }
    const sample = example(flat);
    if (ok(sample)) return sample;
    const described = describedString(flat.description, site, walk);
    if (described !== undefined && stringFits(described, flat)) return described;
    const absolute = described === undefined ? undefined : onServer(described, walk);
    if (absolute !== undefined && stringFits(absolute, flat)) return absolute;
    named = namedString(context);
    const entry = walk.prior && priorEntry(walk.prior, site.parent, site.key);
    const documented = entry && priorString(entry, site.key, named, ok, (word) => nounOf(word, site, walk));
    if (documented !== undefined) return documented;
    if (named !== undefined && ok(named)) return named;
    // A name that does not fit (a country's name where two letters are asked for) may fit in another spelling.
    if (named !== undefined) for (const variant of namedVariants(context)) if (ok(variant)) return variant;
  }

  const min = flat.minLength ?? 0;
  const max = flat.maxLength ?? Infinity;
  const format = flat.formats.find(hasFormat);
  if (format !== undefined) {
    const value = fromFormat(format, `${site.parent}_${site.key}`, ok);
    if (value !== undefined) return value;
    if (!flat.patterns.length) return bestEffort(walk, formatString(format, site.key)!);
  }
  if (flat.patterns.length) {
    const repeat = Math.max(1, Math.min(8, flat.maxLength ?? 8));
    for (const pattern of flat.patterns) {
      const value = fromPattern(pattern, ok, repeat, min);
      if (value !== undefined) return value;
    }
    return plainFallback(min, max, ok) ?? bestEffort(walk, named ?? '');
  }
  if (walk.loose) {
    const value = faker.string.alpha({ length: rng.int(min, Math.min(max, min + 24)), casing: 'lower' });
    return ok(value) ? value : bestEffort(walk, value);
  }
  const hinted = flat.formats.length ? formatHintString(flat.formats[0]!, context) : undefined;
  const value = fitLength(hinted ?? named ?? countString(site.key) ?? plainString(), min, max);
  if (ok(value)) return value;
  const plain = fitLength(plainString(), min, max);
  return ok(plain) ? plain : bestEffort(walk, plain);
}
