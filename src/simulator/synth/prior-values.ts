import { idPrefix, valueClass } from '../../library/value-class.js';
import { contextKeys, type PriorEntry, type ValuePrior } from '../prior/prior.js';
import { faker, rng } from './faker.js';
import { dateFor, dateString, dateTimeString } from './formats.js';
import { nameKey } from './names.js';

/** Found entries (or null) by holder and field name, for one API and category. */
type Found = Map<string, Map<string, PriorEntry | null>>;

/** The prior as one call reads it: the tool's API and category fill in the contexts. */
export interface PriorView {
  prior: ValuePrior;
  api: string;
  category: string;
  found: Found;
}

/** Values a context needs before it speaks for a field outside its own API (one API's one example is its own word). */
const MIN_SHARED = 2;
/** Counts are raised to this power before a class is drawn: the usual class, with the others now and then. */
const SHARPEN = 3;
const UNIX_2000 = 946_684_800;
const STRING_CLASSES_SKIPPED = new Set(['null', 'boolean', 'integer', 'float']);
/** Classes whose samples are redrawn character by character (same shape, new value); the rest are repeated. */
const RESHAPED = new Set([
  'hash',
  'vendor_id',
  'opaque_id',
  'numeric_string',
  'alphanumeric',
  'phone',
  'unix_timestamp',
]);
/** Lookups kept per prior before the memo starts over: a long-running server meets every field of the library. */
const MEMO_LIMIT = 500_000;
const memos = new WeakMap<ValuePrior, { scopes: Map<string, Found>; size: number }>();

/**
 * The view of one call. Lookups are memoized per API and category, since building six context strings and finding
 * them among 200,000 for every field of every body would cost more than the body itself.
 */
export function priorView(prior: ValuePrior, api: string, category: string): PriorView {
  let memo = memos.get(prior);
  if (!memo || memo.size > MEMO_LIMIT) memos.set(prior, (memo = { scopes: new Map(), size: 0 }));
  const scope = `${api}\u0000${category}`;
  let found = memo.scopes.get(scope);
  if (!found) memo.scopes.set(scope, (found = new Map()));
  return { prior, api, category, found };
}

/** A prior's contexts as a Map: made once per prior, on first use. */
const indexes = new WeakMap<ValuePrior, Map<string, PriorEntry>>();

// A Map: looking keys up in an object of 200,000 properties parsed from JSON costs microseconds each.
function indexed(prior: ValuePrior): Map<string, PriorEntry> {
  let index = indexes.get(prior);
  if (!index) indexes.set(prior, (index = new Map(Object.entries(prior.fields))));
  return index;
}

/** The most specific context of the field with enough values, if any. */
export function priorEntry(view: PriorView, parent: string, key: string): PriorEntry | undefined {
  let byKey = view.found.get(parent);
  if (!byKey) view.found.set(parent, (byKey = new Map()));
  let entry = byKey.get(key);
  if (entry === undefined) {
    entry = lookup(view, parent, key) ?? null;
    byKey.set(key, entry);
    memos.get(view.prior)!.size++;
  }
  return entry ?? undefined;
}

/**
 * Entries of an API's own contexts: what the vendor documented for this very API. Their context names carry the API,
 * so an entry is its API's own for every lookup that finds it.
 */
const owned = new WeakSet<PriorEntry>();

/** Whether an entry holds the API's own documented values, not other APIs'. */
export const ownEntry = (entry: PriorEntry): boolean => owned.has(entry);

function lookup(view: PriorView, parent: string, key: string): PriorEntry | undefined {
  const fields = indexed(view.prior);
  const contexts = contextKeys({ api: view.api, category: view.category, parent, key });
  for (const [i, context] of contexts.entries()) {
    const entry = fields.get(context);
    if (entry && entry.n >= (i < 2 ? 1 : MIN_SHARED)) {
      if (i < 2) owned.add(entry);
      return entry;
    }
  }
  return undefined;
}

/** An entry's string classes with their sharpened weights, and the most frequent: made once per entry. */
interface StringChoice {
  classes: [string, number][];
  total: number;
  mode: string | undefined;
}
const choices = new WeakMap<PriorEntry, StringChoice>();

function stringChoice(entry: PriorEntry): StringChoice {
  let choice = choices.get(entry);
  if (choice) return choice;
  const classes = Object.entries(entry.classes)
    .filter(([c]) => !STRING_CLASSES_SKIPPED.has(c) && (c !== 'unix_timestamp' || !!entry.samples[c]))
    .map(([c, count]): [string, number] => [c, count ** SHARPEN]);
  const mode = classes.reduce<[string, number] | undefined>((a, b) => (a && a[1] >= b[1] ? a : b), undefined);
  choice = { classes, total: classes.reduce((n, [, w]) => n + w, 0), mode: mode?.[0] };
  choices.set(entry, choice);
  return choice;
}

/** A string class drawn in proportion to its sharpened count; the most frequent with `mode`. */
function drawClass(entry: PriorEntry, mode: boolean): string | undefined {
  const choice = stringChoice(entry);
  if (mode) return choice.mode;
  let roll = rng.next() * choice.total;
  for (const [cls, weight] of choice.classes) if ((roll -= weight) < 0) return cls;
  return undefined;
}

const agreements = new WeakMap<PriorEntry, Map<string, boolean>>();

/**
 * Whether a named value is of the class: decided on the first value of its name with as many words and kept, since
 * classifying every string costs a sixth of the synthesis time. The words count because one name rule makes words and
 * phrases both (titles of one to three words); otherwise a rule makes one kind of value.
 */
function namedAgrees(entry: PriorEntry, key: string, named: string, cls: string): boolean {
  let byShape = agreements.get(entry);
  if (!byShape) agreements.set(entry, (byShape = new Map()));
  let words = 1;
  for (let at = named.indexOf(' '); at >= 0 && words < 6; at = named.indexOf(' ', at + 1)) words++;
  const shape = `${words}\u0000${key}`;
  let agrees = byShape.get(shape);
  if (agrees === undefined) byShape.set(shape, (agrees = valueClass(named, key) === cls));
  return agrees;
}

/**
 * A string of the class the vendors' examples show for this field. Where the synthesizer has a value of its own for
 * the name (`named`: an email agreeing with the person, a country code), it stands where it is of the class most
 * vendors' values there are (namedAgrees); otherwise a class is drawn. A value of that class is made from the
 * samples: the same shape with new characters for ids and numbers (a vendor id of the `record`'s kind where the
 * samples hold one), repeated for words and text. Undefined when `ok` refuses it.
 */
export function priorString(
  entry: PriorEntry,
  key: string,
  named: string | undefined,
  ok: (value: string) => boolean,
  record?: RecordNouns,
): string | undefined {
  const cls = drawClass(entry, named !== undefined);
  if (cls === undefined) return undefined;
  if (named !== undefined && namedAgrees(entry, key, named, cls) && ok(named)) return named;
  const value = made(cls, entry.samples[cls], key, record);
  return value !== undefined && ok(value) ? value : undefined;
}

/** Whether a word (a name key) names the record a field is in: its holder, a noun of the request's path. */
export type RecordNouns = (word: string) => boolean;

/**
 * The samples to draw from: for a vendor id, those whose prefix names the record (`ach_transfer_…` for an ACH
 * transfer) where any does, since one API's `id` holds the ids of all its resources.
 */
function candidates(cls: string, samples: string[], record: RecordNouns | undefined): string[] {
  if (cls !== 'vendor_id' || record === undefined) return samples;
  const named = samples.filter((sample) => {
    const prefix = idPrefix(sample);
    return prefix !== undefined && record(nameKey(prefix.slice(0, -1)));
  });
  return named.length > 0 ? named : samples;
}

function made(cls: string, samples: string[] | undefined, key: string, record?: RecordNouns): string | undefined {
  switch (cls) {
    case 'empty':
      return '';
    case 'uuid':
      return faker.string.uuid();
    case 'datetime':
      return dateTimeString(dateFor(key));
    case 'date':
      return dateString(dateFor(key));
  }
  if (!samples?.length) return undefined;
  const sample = rng.pick(candidates(cls, samples, record));
  if (cls === 'ip' && /^\d+\.\d+\.\d+\.\d+$/.test(sample))
    return [rng.int(1, 223), rng.int(0, 255), rng.int(0, 255), rng.int(1, 254)].join('.');
  return RESHAPED.has(cls) ? reshaped(sample, cls) : sample;
}

/**
 * The sample with its letters and digits redrawn in kind and case (a hash's letters among a–f, so that it stays
 * hexadecimal, a short code's word kept); a vendor id keeps its prefix, a time its era.
 */
function reshaped(sample: string, cls: string): string {
  const kept = cls === 'vendor_id' ? (idPrefix(sample)?.length ?? 0) : cls === 'unix_timestamp' ? 3 : 0;
  const letters = cls === 'hash' ? 6 : 26;
  const words = cls === 'alphanumeric' ? wordLetters(sample) : undefined;
  let out = sample.slice(0, kept);
  for (let i = kept; i < sample.length; i++) {
    const c = sample[i]!;
    if (words?.has(i)) out += c;
    else if (c >= '0' && c <= '9') out += String(i === 0 && c !== '0' ? rng.int(1, 9) : rng.int(0, 9));
    else if (c >= 'a' && c <= 'z') out += String.fromCharCode(97 + rng.int(0, letters - 1));
    else if (c >= 'A' && c <= 'Z') out += String.fromCharCode(65 + rng.int(0, letters - 1));
    else out += c;
  }
  return out;
}

/**
 * Places of the letters in a short code that spell a word (`john` of `john1234`, `Room` of `Room12`: three letters or
 * more with a vowel): a username or a label keeps its word and takes new digits, where redrawn letters read as noise.
 */
function wordLetters(sample: string): Set<number> {
  const out = new Set<number>();
  for (const run of sample.matchAll(/[A-Za-z]{3,}/g))
    if (/[aeiouy]/i.test(run[0])) for (let i = 0; i < run[0].length; i++) out.add(run.index + i);
  return out;
}

const NUMBER_CLASSES = ['integer', 'float', 'unix_timestamp'] as const;

/**
 * Which kind of documented number to draw near, in proportion to the sharpened counts (a `created_time` documented
 * 43 times as 0 and 5 times as a time is mostly 0): samples keep distinct values only, so their counts are lost.
 */
function numberClass(entry: PriorEntry): string {
  const weights = NUMBER_CLASSES.map((cls): [string, number] => [
    cls,
    entry.samples[cls]?.length ? (entry.classes[cls] ?? 0) ** SHARPEN : 0,
  ]);
  let roll = rng.next() * weights.reduce((n, [, w]) => n + w, 0);
  for (const [cls, weight] of weights) if ((roll -= weight) < 0) return cls;
  return 'integer';
}

/**
 * A number near one the vendors' examples show for this field (half to one and a half times it), whole where most
 * of theirs are (a `number` field documented with whole values stays whole), else within their range. Undefined
 * where the examples hold no numbers or `fits` refuses the draw: the caller's `fits` keeps it inside what the
 * field's name says is sane (a latitude, a percentage), since documents carry placeholders too.
 */
export function priorNumber(entry: PriorEntry, integer: boolean, fits: (n: number) => boolean): number | undefined {
  const ints = entry.ints ?? 0;
  const floats = entry.floats ?? 0;
  if (ints + floats === 0 || entry.lo === undefined || entry.hi === undefined) return undefined;
  const whole = integer || ints >= floats;
  const samples = (entry.samples[numberClass(entry)] ?? []).map(Number).filter(Number.isFinite);
  const near = samples.length > 0 ? rng.pick(samples) : undefined;
  // Times in seconds or milliseconds since 1970 move by days, not years.
  const spread = near !== undefined && Math.abs(near) >= UNIX_2000 ? 0.02 : 0.5;
  const value =
    near !== undefined ? near * (1 - spread + 2 * spread * rng.next()) : entry.lo + rng.next() * (entry.hi - entry.lo);
  const rounded = whole ? Math.round(value) : Math.round(value * 100) / 100;
  return fits(rounded) ? rounded : undefined;
}
