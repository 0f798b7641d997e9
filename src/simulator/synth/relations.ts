import { callOffered } from './calls.js';
import { rng } from './faker.js';
import { repeatRequest } from './repeats.js';
import { nameKey } from './names.js';
import { NOTHING, type Site, type Walk } from './site.js';

/** What a field's name says about its siblings: it counts a list, or it is the earlier or later of a pair of times. */
type Role =
  | { kind: 'count'; list: string | undefined; exact: boolean }
  | { kind: 'earlier' | 'later'; pair: 'change' | 'span' }
  | undefined;

const STAMP = '(?:_(?:at|on|date|time|date_time|datetime|timestamp|time_utc|utc|ms))?';
const CREATED = new RegExp(
  `^(?:date_created|inserted_at|create_time|creation_time|creation_date|(?:created|creation)${STAMP})$`,
);
const UPDATED = new RegExp(
  `^(?:date_(?:updated|modified|changed)|update_time|(?:last_)?(?:updated|modified|changed|edited)${STAMP}|` +
    `last_(?:update|modification|modified|updated)${STAMP})$`,
);
const START = new RegExp(
  `^(?:(?:start|starts|started|begin|begins|began|valid_from|effective_from|opened|check_in|departure)${STAMP}|` +
    'from_(?:date|time|datetime)|date_from|period_start|start_date_time)$',
);
const END = new RegExp(
  '^(?:(?:end|ends|ended|finish|finished|finishes|completed|valid_to|valid_until|effective_to|closed|check_out|' +
    `arrival)${STAMP}|to_(?:date|time|datetime)|date_to|period_end|end_date_time)$`,
);
/** A page's count of the list beside it (exactly its length). */
const PAGE_COUNTS = new Set([
  'count',
  'length',
  'result_count',
  'results_count',
  'item_count',
  'items_count',
  'num_results',
  'returned',
  'record_count',
  'records_count',
  'page_count_items',
]);
/** A count of every match, of which the page lists some (at least its length). */
const TOTALS = new Set([
  'total',
  'total_count',
  'total_results',
  'total_items',
  'total_records',
  'total_hits',
  'total_size',
  'total_elements',
  'total_entries',
  'total_rows',
  'size',
  'hits',
  'found',
  'total_found',
  'total_matches',
  'matches',
]);

const roles = new Map<string, Role | null>();

/** A field's role, and what a `total_X` sums, by the field's name as written: every object of every body asks. */
const relations = new Map<string, { role: Role; summed: string | undefined }>();

function relationOf(name: string): { role: Role; summed: string | undefined } {
  let relation = relations.get(name);
  if (relation === undefined) {
    const key = nameKey(name);
    relation = { role: roleOf(key), summed: /^total_(.+)$/.exec(key)?.[1] };
    if (relations.size < 50_000) relations.set(name, relation);
  }
  return relation;
}

function roleOf(key: string): Role {
  const known = roles.get(key);
  if (known !== undefined) return known ?? undefined;
  let role: Role;
  const counted = /^(.+)_count$/.exec(key)?.[1] ?? /^(?:num|number_of|count_of|n)_(.+)$/.exec(key)?.[1];
  if (TOTALS.has(key)) role = { kind: 'count', list: undefined, exact: false };
  else if (PAGE_COUNTS.has(key)) role = { kind: 'count', list: undefined, exact: true };
  else if (counted !== undefined) role = { kind: 'count', list: counted, exact: true };
  else if (CREATED.test(key)) role = { kind: 'earlier', pair: 'change' };
  else if (UPDATED.test(key)) role = { kind: 'later', pair: 'change' };
  else if (START.test(key)) role = { kind: 'earlier', pair: 'span' };
  else if (END.test(key)) role = { kind: 'later', pair: 'span' };
  if (roles.size < 50_000) roles.set(key, role ?? null);
  return role;
}

/** A timestamp as milliseconds: an ISO or RFC 2822 date, or Unix seconds or milliseconds. */
function instant(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value : value * 1000;
  if (typeof value !== 'string' || !/\d/.test(value)) return undefined;
  if (/^\d{9,13}$/.test(value)) return instant(Number(value));
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

const DAY_MS = 86_400_000;

/** An instant written the way `like` writes one: Unix seconds or milliseconds, a date, an ISO or an HTTP date. */
function restyle(ms: number, like: unknown): unknown {
  if (typeof like === 'number') return like > 1e11 ? ms : Math.floor(ms / 1000);
  const text = String(like);
  if (/^\d{13}$/.test(text)) return String(ms);
  if (/^\d{9,12}$/.test(text)) return String(Math.floor(ms / 1000));
  const iso = new Date(ms).toISOString();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return iso.slice(0, 10);
  if (/T\d{2}:\d{2}:\d{2}\.\d/.test(text)) return iso;
  if (/T\d{2}:\d{2}/.test(text)) return `${iso.slice(0, 19)}Z`;
  return new Date(ms).toUTCString();
}

const countOf = (value: unknown) =>
  typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
const sameAs = (value: unknown, want: unknown) =>
  value === want || (value !== null && typeof value !== 'object' && String(value) === String(want));

/** Parts that are taken away from a total, or are no part of it, rather than added: a discount, a limit. */
const NOT_A_PART =
  /(?:^|_)(?:discount|discounts|refund|refunded|credit|max|min|avg|average|limit|remaining|total)(?:_|$)/;

/**
 * What `total_X` must be, from its parts, the number siblings named `…_X` (`prompt_tokens` and `completion_tokens` of
 * `total_tokens`): their sum when there are two or more; the one part itself where the object holds no other number
 * (an embedding's usage: `prompt_tokens` and `total_tokens`); else at least that part (a `total_amount` beside a
 * `tax_amount` has parts its object does not show).
 */
function totalOfParts(out: Record<string, unknown>, total: string, unit: string): number | undefined {
  let sum = 0;
  let parts = 0;
  for (const other in out) {
    const key = nameKey(other);
    const value = out[other];
    if (other === total || !key.endsWith(`_${unit}`) || NOT_A_PART.test(key.slice(0, -unit.length - 1))) continue;
    if (typeof value !== 'number') continue;
    sum += value;
    parts++;
  }
  if (parts >= 2) return sum;
  if (parts === 0) return undefined;
  const numbers = Object.values(out).filter((value) => typeof value === 'number').length;
  const current = out[total] as number;
  return numbers === 2 || current < sum ? sum : current;
}

/**
 * Makes an object's fields agree with each other: `total_X` is the sum of its parts (`total_tokens` of
 * `prompt_tokens` and `completion_tokens`), `X_count` is the length of `X`, a page's `count` the length of its
 * one list and its `total` at least that, `created_at` ≤ `updated_at` and `start` ≤ `end`. `regenerate` draws a
 * field again through its schema, asked for a value: only a redraw that gives exactly that value is kept, so the
 * body stays valid.
 */
export function relate(
  out: Record<string, unknown>,
  site: Site,
  walk: Walk,
  regenerate: (key: string, want: unknown) => unknown,
): void {
  const replace = (key: string, want: unknown) => {
    const value = regenerate(key, want);
    if (value === NOTHING || !sameAs(value, want)) return false;
    out[key] = value;
    return true;
  };
  repeatRequest(out, site, walk, replace);
  callOffered(out, walk, replace);
  // A repository's `full_name` is its owner's login and its name (GitHub, Gitea): an org's listing shows the org.
  const owner = out.owner as { login?: unknown } | undefined;
  if (typeof out.full_name === 'string' && typeof out.name === 'string' && typeof owner?.login === 'string') {
    const full = `${owner.login}/${out.name}`;
    if (out.full_name !== full) replace('full_name', full);
  }
  let lists: [string, unknown[]][] | undefined;
  for (const name in out) {
    const { role, summed } = relationOf(name);
    if (summed !== undefined && typeof out[name] === 'number') {
      const sum = totalOfParts(out, name, summed);
      if (sum !== undefined && sum !== out[name]) replace(name, sum);
    }
    if (role === undefined) continue;
    if (role.kind === 'count') {
      const current = countOf(out[name]);
      if (current === undefined) continue;
      lists ??= Object.entries(out).filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]));
      let list: unknown[] | undefined;
      if (role.list !== undefined)
        list = lists.find(([other]) => nameKey(other) === role.list || nameKey(other) === `${role.list}s`)?.[1];
      // A bare `count` or `total` counts the page only in the page's envelope: a product's `count` is its stock.
      else if (lists.length === 1 && site.depth <= 1) list = lists[0]![1];
      if (list === undefined) continue;
      const length = list.length;
      if (role.exact ? current === length : current >= length) continue;
      const wanted = role.exact ? length : length + (walk.echo.listSize === length ? rng.int(0, length * 5) : 0);
      replace(name, typeof out[name] === 'string' ? String(wanted) : wanted);
    } else if (role.kind === 'earlier') {
      for (const other in out) {
        const partner = relationOf(other).role;
        if (partner?.kind !== 'later' || partner.pair !== role.pair) continue;
        const [a, b] = [out[name], out[other]];
        const [ta, tb] = [instant(a), instant(b)];
        if (ta === undefined || tb === undefined || ta <= tb) continue;
        // The earlier moves back before the later, written as it was; failing that, the two swap places.
        if (replace(name, restyle(tb - rng.int(DAY_MS, 30 * DAY_MS), a))) continue;
        if (typeof a === typeof b && replace(name, b) && !replace(other, a)) out[name] = a;
      }
    }
  }
}
