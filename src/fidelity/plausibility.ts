import { isRecord, type ResponseField } from './fields.js';
import { nameKey } from '../simulator/synth/names.js';

/** What a check sees: one response field, and whether the call read one existing resource (`GET /pets/{petId}`). */
export interface CheckInput {
  field: ResponseField;
  read: boolean;
}

/** A named plausibility check: undefined when it does not apply to the field, else whether the value passes. */
export interface PlausibilityCheck {
  name: string;
  test: (input: CheckInput) => boolean | undefined;
}

const words = (key: string) => key.split('_');
const hasWord = (key: string, ...want: string[]) => words(key).some((w) => want.includes(w));
const text = (field: ResponseField) => `${field.description ?? ''}`.toLowerCase();

/** A number, or a numeric string (`"21.5"`, `"45%"`, `"$3.99"`); undefined for anything else. */
export function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const cleaned = value
    .trim()
    .replace(/^[$€£¥]/, '')
    .replace(/\s*(%|°[cfk]?|[cfk])$/i, '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return undefined;
  return Number(cleaned);
}

/** A numeric field must be a number (or a numeric string) in [min, max]: `"TempF": "edge"` fails. */
const inRange = (value: unknown, min: number, max: number) => {
  const n = numeric(value);
  return n !== undefined && n >= min && n <= max;
};

/** Which temperature scale a field states, from its name (`temp_f`, `TempC`, `temperature_kelvin`) or description. */
export function temperatureUnit(field: ResponseField): 'C' | 'F' | 'K' | undefined {
  const ws = words(field.key);
  const about = text(field);
  if (ws.some((w) => ['f', 'fahrenheit', 'tempf'].includes(w)) || /fahrenheit|°f|imperial/.test(about)) return 'F';
  if (ws.some((w) => ['c', 'celsius', 'tempc', 'centigrade'].includes(w)) || /celsius|°c|metric/.test(about))
    return 'C';
  if (ws.some((w) => ['k', 'kelvin'].includes(w)) || /kelvin/.test(about)) return 'K';
  return undefined;
}

const RANGES = { C: [-90, 60], F: [-130, 140], K: [183, 333] } as const;

export const temperature: PlausibilityCheck = {
  name: 'temperature',
  test: ({ field }) => {
    const ws = words(field.key);
    // `temp` alone may be temporary (`temp_clone_token`): it names a temperature last, or before a unit or a statistic.
    const tempAt = ws.lastIndexOf('temp');
    const named =
      ws.some((w) => /^(temperature|tempf|tempc|feelslike|dewpoint)$/.test(w)) ||
      (tempAt >= 0 && (tempAt === ws.length - 1 || /^(f|c|k|max|min|avg|mean|high|low)$/.test(ws[tempAt + 1]!)));
    if (!named || typeof field.value === 'boolean' || isRecord(field.value) || Array.isArray(field.value))
      return undefined;
    if (field.value === null) return undefined;
    const unit = temperatureUnit(field);
    if (unit) return inRange(field.value, RANGES[unit][0], RANGES[unit][1]);
    // Unstated scale: plausible in Celsius or Fahrenheit.
    return inRange(field.value, -90, 140);
  },
};

export const humidity: PlausibilityCheck = {
  name: 'humidity',
  test: ({ field }) =>
    hasWord(field.key, 'humidity', 'rh') &&
    field.value !== null &&
    !isRecord(field.value) &&
    !Array.isArray(field.value)
      ? inRange(field.value, 0, 100)
      : undefined,
};

export const percentage: PlausibilityCheck = {
  name: 'percentage',
  test: ({ field }) => {
    const percent =
      hasWord(field.key, 'percent', 'percentage', 'pct') ||
      field.format === 'percent' ||
      (typeof field.value === 'string' && /^\s*-?\d+(\.\d+)?\s*%\s*$/.test(field.value));
    if (
      !percent ||
      field.value === null ||
      typeof field.value === 'boolean' ||
      isRecord(field.value) ||
      Array.isArray(field.value)
    )
      return undefined;
    // Changes can be negative (`price_change_percent`), and growth can exceed 100: only shares are bounded.
    if (hasWord(field.key, 'change', 'growth', 'delta', 'diff', 'increase', 'decrease', 'return', 'gain', 'loss'))
      return numeric(field.value) !== undefined;
    return inRange(field.value, 0, 100);
  },
};

const isCoordinate = (field: ResponseField) =>
  field.value !== null && typeof field.value !== 'boolean' && !isRecord(field.value) && !Array.isArray(field.value);

export const latitude: PlausibilityCheck = {
  name: 'latitude',
  test: ({ field }) =>
    hasWord(field.key, 'lat', 'latitude') && isCoordinate(field) ? inRange(field.value, -90, 90) : undefined,
};

export const longitude: PlausibilityCheck = {
  name: 'longitude',
  test: ({ field }) =>
    hasWord(field.key, 'lng', 'lon', 'longitude') && isCoordinate(field) ? inRange(field.value, -180, 180) : undefined,
};

export const last4: PlausibilityCheck = {
  name: 'card_last4',
  test: ({ field }) =>
    ['last4', 'last_4', 'last_four', 'last_four_digits', 'last4_digits'].includes(field.key) && field.value !== null
      ? /^\d{4}$/.test(String(field.value))
      : undefined,
};

// ISO 4217 from the runtime's ICU data (Intl knows every current code); ISO 3166-1 alpha-2 through Intl.DisplayNames.
let currencies: Set<string> | undefined;
let regions: Intl.DisplayNames | undefined;

/**
 * ISO 4217 codes ICU leaves out: fund codes, precious metals, bond units, the 2023 bolívar. The no-currency and testing
 * codes stay out.
 */
const ICU_MISSING = [
  'CLF',
  'BOV',
  'CHE',
  'CHW',
  'COU',
  'MXV',
  'USN',
  'UYI',
  'UYW',
  'XUA',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XAU',
  'XAG',
  'XPD',
  'XPT',
  'VED',
];

export function isCurrencyCode(value: string): boolean {
  currencies ??= new Set([...Intl.supportedValuesOf('currency'), ...ICU_MISSING]);
  return /^[A-Za-z]{3}$/.test(value) && currencies.has(value.toUpperCase());
}

export function isCountryCode(value: string): boolean {
  if (!/^[A-Za-z]{2}$/.test(value)) return false;
  const code = value.toUpperCase();
  if (code === 'ZZ') return false;
  regions ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  try {
    return regions.of(code) !== undefined;
  } catch {
    return false;
  }
}

export const currency: PlausibilityCheck = {
  name: 'currency_code',
  test: ({ field }) => {
    const named =
      [
        'currency',
        'currency_code',
        'currency_iso',
        'iso_currency_code',
        'currency_iso_code',
        'base_currency',
        'quote_currency',
        'default_currency',
      ].includes(field.key) || field.format === 'iso-4217';
    if (!named || typeof field.value !== 'string') return undefined;
    // A currency field may hold a symbol or a name; a three-letter code must be a real one, and a code field a code.
    if (/^[A-Za-z]{3}$/.test(field.value) || field.key !== 'currency') return isCurrencyCode(field.value);
    return undefined;
  },
};

export const country: PlausibilityCheck = {
  name: 'country_code',
  test: ({ field }) => {
    // A phone number's `country_code` is a calling code (`"1"`, `"+44"`), not a region.
    if (typeof field.value !== 'string' || /^\+?\d+$/.test(field.value)) return undefined;
    const code =
      [
        'country_code',
        'countrycode',
        'country_iso',
        'country_iso_code',
        'iso_country',
        'iso_country_code',
        'country_alpha2',
        'iso2',
        'alpha2',
      ].includes(field.key) ||
      field.format === 'iso-3166' ||
      field.format === 'country-code';
    const shortCountry = hasWord(field.key, 'country') && field.value.length === 2;
    if (!code && !shortCountry) return undefined;
    // Alpha-3 codes (`USA`) are not checked: the runtime has no alpha-3 table.
    if (/^[A-Za-z]{3}$/.test(field.value)) return undefined;
    return isCountryCode(field.value);
  },
};

const MONEY = new Set([
  'price',
  'amount',
  'cost',
  'fee',
  'fees',
  'subtotal',
  'tax',
  'total_price',
  'unit_price',
  'sale_price',
  'list_price',
  'price_usd',
  'amount_due',
  'amount_paid',
  'total_amount',
]);

export const money: PlausibilityCheck = {
  name: 'price_non_negative',
  test: ({ field }) => {
    const ws = words(field.key);
    const last = ws[ws.length - 1]!;
    const moneyLike =
      MONEY.has(field.key) ||
      ['price', 'cost', 'fee'].includes(last) ||
      (last === 'amount' && !hasWord(field.key, 'refund', 'adjustment', 'change', 'delta', 'balance', 'net'));
    if (
      !moneyLike ||
      field.value === null ||
      isRecord(field.value) ||
      Array.isArray(field.value) ||
      typeof field.value === 'boolean'
    )
      return undefined;
    const n = numeric(field.value);
    return n !== undefined && n >= 0;
  },
};

/** The body's top-level object, or one under a wrapper (`{data: {items: [...], total}}`). */
const isEnvelope = (field: ResponseField) => field.path.split('/').length <= 3;

/** Counts of every match, of which a page lists some (Bitbucket's `size` too). */
const TOTALS = new Set([
  'size',
  'total',
  'total_count',
  'total_results',
  'total_items',
  'total_records',
  'total_hits',
  'total_size',
  'totalcount',
]);

/** `pets_count` next to `pets`, or `count` / `total` next to the one list of a page. */
export const countMatchesArray: PlausibilityCheck = {
  name: 'count_matches_array',
  test: ({ field }) => {
    if (typeof field.value !== 'number' && typeof field.value !== 'string') return undefined;
    const siblings = Object.entries(field.parent).filter(([, v]) => Array.isArray(v)) as [string, unknown[]][];
    const key = field.key;
    let list: unknown[] | undefined;
    let exact = true;
    const counted = TOTALS.has(key)
      ? undefined
      : (/^(.+)_count$/.exec(key)?.[1] ?? /^(?:num|number_of|count_of)_(.+)$/.exec(key)?.[1]);
    if (TOTALS.has(key)) {
      // A total counts every match, the page only some of them.
      list = siblings.length === 1 ? siblings[0]![1] : undefined;
      exact = false;
    } else if (counted !== undefined) {
      list = siblings.find(([name]) => nameKey(name) === counted || nameKey(name) === `${counted}s`)?.[1];
    } else if (
      [
        'count',
        'length',
        'result_count',
        'results_count',
        'item_count',
        'items_count',
        'num_results',
        'returned',
      ].includes(key)
    ) {
      list = siblings.length === 1 ? siblings[0]![1] : undefined;
    }
    // A bare `count` or `total` counts the page only in the page's envelope: a product's `count` is its stock.
    if (counted === undefined && !isEnvelope(field)) return undefined;
    if (list === undefined) return undefined;
    const n = numeric(field.value);
    if (n === undefined || !Number.isInteger(n)) return false;
    return exact ? n === list.length : n >= list.length;
  },
};

/** A timestamp as milliseconds: ISO dates, RFC 2822 dates, Unix seconds or milliseconds. */
export function instant(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value : value * 1000;
  if (typeof value !== 'string' || !/\d/.test(value)) return undefined;
  if (/^\d{9,13}$/.test(value)) return instant(Number(value));
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

const CREATED = new Set([
  'created',
  'created_at',
  'created_on',
  'creation_date',
  'created_date',
  'date_created',
  'created_time',
  'creation_time',
  'inserted_at',
]);
const UPDATED = new Set([
  'updated',
  'updated_at',
  'updated_on',
  'modified',
  'modified_at',
  'last_modified',
  'date_modified',
  'updated_date',
  'modified_date',
  'last_updated',
  'update_time',
  'updated_time',
]);
const PAIRS: [Set<string>, Set<string>][] = [
  [CREATED, UPDATED],
  [
    new Set([
      'start',
      'start_date',
      'start_time',
      'starts_at',
      'started_at',
      'begin',
      'begin_date',
      'from_date',
      'valid_from',
    ]),
    new Set([
      'end',
      'end_date',
      'end_time',
      'ends_at',
      'ended_at',
      'finish',
      'finished_at',
      'completed_at',
      'to_date',
      'valid_to',
      'valid_until',
    ]),
  ],
];

export const timestampOrder: PlausibilityCheck = {
  name: 'timestamps_ordered',
  test: ({ field }) => {
    const pair = PAIRS.find(([first]) => first.has(field.key));
    if (!pair) return undefined;
    const later = Object.entries(field.parent).find(([name]) => pair[1].has(nameKey(name)));
    if (!later) return undefined;
    const a = instant(field.value);
    const b = instant(later[1]);
    if (a === undefined || b === undefined) return undefined;
    return a <= b;
  },
};

const FLAGS = new Set([
  'deleted',
  'is_deleted',
  'disabled',
  'is_disabled',
  'archived',
  'is_archived',
  'suspended',
  'is_suspended',
  'banned',
  'is_banned',
  'revoked',
  'is_revoked',
  'blocked',
  'is_blocked',
  'deactivated',
  'expired',
  'is_expired',
]);

/** A resource read by its id exists and is in use: `deleted: true` most of the time is a fake. */
export const flagsNormal: PlausibilityCheck = {
  name: 'status_flags_normal',
  test: ({ field, read }) =>
    read && field.record && FLAGS.has(field.key) && typeof field.value === 'boolean'
      ? field.value === false
      : undefined,
};

export const email: PlausibilityCheck = {
  name: 'email_well_formed',
  test: ({ field }) => {
    if (typeof field.value !== 'string' || field.value === '') return undefined;
    if (
      !(
        field.format === 'email' ||
        ['email', 'email_address', 'mail', 'contact_email', 'billing_email'].includes(field.key) ||
        words(field.key).at(-1) === 'email'
      )
    )
      return undefined;
    return /^[^\s@]+@[^\s@]+\.[A-Za-z]{2,}$/.test(field.value);
  },
};

export const url: PlausibilityCheck = {
  name: 'url_well_formed',
  test: ({ field }) => {
    if (typeof field.value !== 'string' || field.value === '') return undefined;
    const last = words(field.key).at(-1);
    if (
      !(
        field.format === 'uri' ||
        field.format === 'url' ||
        ['url', 'uri', 'href', 'homepage', 'website'].includes(last ?? '')
      )
    )
      return undefined;
    // Relative references (`/v1/pets/7`, `rest/gadgets/x.xml`) and scp-style git remotes (`git@github.com:o/r.git`) are
    // URLs too.
    if (
      !/^[a-z][a-z0-9+.-]*:/i.test(field.value) &&
      /^[\w.~%!$&'()*+,;=:@/?#[\]{}-]+$/.test(field.value) &&
      field.value.includes('/')
    )
      return true;
    if (/^[\w.-]+@[\w.-]+\.[a-z]{2,}:[\w./~-]+$/i.test(field.value)) return true;
    try {
      const parsed = new URL(field.value.replace(/\{[^}]*\}/g, ''));
      return (
        /^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol) &&
        (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'
          ? true
          : parsed.hostname.includes('.') || parsed.hostname === 'localhost')
      );
    } catch {
      return false;
    }
  },
};

/** Creation dates and other past events fall between 1970 and a year from now. */
export const dateInRange: PlausibilityCheck = {
  name: 'date_sane',
  test: ({ field }) => {
    if (
      field.value === null ||
      (!CREATED.has(field.key) && !UPDATED.has(field.key) && field.format !== 'date-time' && field.format !== 'date')
    )
      return undefined;
    const t = instant(field.value);
    if (t === undefined) return field.format === 'date-time' || field.format === 'date' ? false : undefined;
    const year = new Date(t).getUTCFullYear();
    // A record's own creation and change fall in the computer age and not past next year; other dates (birthdays,
    // expiries, schedules) only within two centuries either way.
    if (CREATED.has(field.key) || UPDATED.has(field.key)) return year >= 1970 && t <= Date.now() + 366 * 86_400_000;
    return year >= 1800 && year <= 2200;
  },
};

/** Every check, in report order. */
export const CHECKS: readonly PlausibilityCheck[] = [
  temperature,
  humidity,
  percentage,
  latitude,
  longitude,
  last4,
  currency,
  country,
  money,
  countMatchesArray,
  timestampOrder,
  flagsNormal,
  email,
  url,
  dateInRange,
];
