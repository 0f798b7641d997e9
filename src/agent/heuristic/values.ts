import type { JsonSchema, Tool } from '../../library/tool.js';
import { deref } from '../../graph/schema-walk.js';
import { stem } from '../../retrieval/tokenize.js';

/**
 * Argument values read from the task text: quoted strings, emails, URLs, dates, ids, numbers, upper-case codes
 * (USD, AAPL), proper nouns, and enum values the text names. Each candidate is matched to a parameter by type and
 * format, and by proximity: a parameter named in the few words before a value (`named "Rex"`, `city Paris`,
 * `3 days`) claims it. Required parameters take any compatible value; optional ones only a value the text ties to
 * them (proximity, an enum value, a matching format), so a stray word never fills an optional field.
 */

export type Kind = 'quoted' | 'email' | 'url' | 'date' | 'id' | 'number' | 'code' | 'proper';

export interface Candidate {
  kind: Kind;
  text: string;
  start: number;
  end: number;
}

export interface Param {
  name: string;
  required: boolean;
  schema: Record<string, unknown>;
  type: string;
  /** The parameter name's words, lower case, and their stems. */
  words: Set<string>;
}

const PATTERNS: [Kind, RegExp][] = [
  ['quoted', /"([^"]+)"|“([^”]+)”|(?<=^|\s)'([^']+)'(?=$|[\s.,;:!?])/g],
  ['email', /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g],
  ['url', /https?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/g],
  ['date', /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g],
  ['id', /\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*\b/g],
  ['number', /(?<![\w.])-?\d+(?:\.\d+)?(?![\w])/g],
  ['code', /\b[A-Z]{2,6}\b/g],
  ['proper', /\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b/g],
];

/** Names whose values are free text: when nothing else fills them, the request itself does. */
const TEXT_PARAMS = new Set([
  'q',
  'query',
  'search',
  'keyword',
  'keywords',
  'term',
  'terms',
  'text',
  'prompt',
  'message',
  'content',
  'question',
  'input',
  'topic',
  'phrase',
]);
/** Words in a parameter's name that say which kind of value it takes (`recipient_email`, `start_date`, `ticker`). */
const NAME_HINTS: Record<Kind, ReadonlySet<string>> = {
  // A quoted value is deliberate: any parameter whose name says it holds a name, a text or a code may take it.
  quoted: new Set([
    'name',
    'title',
    'text',
    'query',
    'q',
    'keyword',
    'term',
    'subject',
    'message',
    'body',
    'content',
    'symbol',
    'ticker',
    'city',
    'country',
    'location',
    'address',
    'label',
    'description',
    'comment',
    'note',
    'tag',
    'category',
    'username',
    'user',
    'owner',
    'repo',
    'prompt',
    'input',
    'search',
    'phrase',
    'topic',
  ]),
  email: new Set(['email', 'mail', 'recipient', 'to', 'from', 'sender', 'address', 'cc', 'bcc']),
  url: new Set(['url', 'uri', 'link', 'website', 'href', 'site', 'domain', 'homepage']),
  date: new Set([
    'date',
    'day',
    'time',
    'since',
    'until',
    'start',
    'end',
    'from',
    'to',
    'when',
    'datetime',
    'timestamp',
    'birthday',
    'dob',
  ]),
  id: new Set(['id', 'ids', 'key', 'code', 'number', 'sku', 'ref', 'slug', 'handle', 'token', 'no', 'uuid', 'isbn']),
  number: new Set(['zip', 'postal', 'phone', 'year', 'pin']),
  code: new Set([
    'symbol',
    'ticker',
    'currency',
    'code',
    'from',
    'to',
    'base',
    'target',
    'lang',
    'language',
    'country',
    'iso',
    'unit',
    'locale',
  ]),
  proper: new Set([
    'city',
    'name',
    'country',
    'location',
    'address',
    'place',
    'title',
    'author',
    'query',
    'q',
    'region',
    'destination',
    'origin',
    'state',
    'artist',
    'company',
    'team',
    'person',
    'user',
    'username',
    'language',
    'lang',
    'keyword',
    'term',
    'owner',
    'repo',
  ]),
};
/** Parameter names that identify a resource. */
const IDENTIFIER = /(^|[^a-z])(id|ids|uuid|guid|key|sku|slug|handle|token)$|Id$|Ids$|Key$|_id$/i;
const PROXIMITY_WORDS = 4;
const PROXIMITY_BONUS = 5;
/** An optional parameter is filled only at this score or above: the text must tie the value to it. */
const OPTIONAL_MIN = 5;

export interface Filled {
  arguments: Record<string, unknown>;
  /** Required parameters no value was found for. */
  missing: string[];
}

/**
 * Fills what the text says; `within` is filled first and `also` (the whole task) only with values tied to a parameter.
 */
export function fillFromText(tool: Tool, within: string, also?: string): Filled {
  const params = paramsOf(tool);
  const args: Record<string, unknown> = {};
  const used = new Set<string>();
  assign(params, within, args, false, used);
  // Elsewhere in the task a value belongs to this call only when the text names the parameter next to it, and a
  // value the clause already gave one parameter is not given a second.
  if (also !== undefined && also !== within)
    assign(
      params.filter((p) => !(p.name in args)),
      also,
      args,
      true,
      used,
    );
  for (const p of params) {
    if (p.required && !(p.name in args) && p.type === 'string' && TEXT_PARAMS.has(p.name.toLowerCase()))
      args[p.name] = within.trim();
  }
  return { arguments: args, missing: params.filter((p) => p.required && !(p.name in args)).map((p) => p.name) };
}

/**
 * A value for a required parameter nothing else filled: the schema's default, const, example or first enum value; for
 * a number that names no resource (`limit`, `days`) its minimum or 1; a boolean false. An identifier (`petId`,
 * `order_key`) gets nothing: a made-up id would only address something that does not exist.
 */
export function schemaDefault(tool: Tool, name: string): { value: unknown } | undefined {
  const schema = deref(tool.parameters.properties?.[name], tool.parameters);
  if (!schema) return undefined;
  if ('default' in schema) return { value: schema.default };
  if ('const' in schema) return { value: schema.const };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ('example' in schema) return { value: schema.example };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { value: schema.enum[0] };
  const type = typeOf(schema);
  if (IDENTIFIER.test(name)) return undefined;
  if (type === 'integer' || type === 'number')
    return { value: typeof schema.minimum === 'number' ? schema.minimum : 1 };
  if (type === 'boolean') return { value: false };
  return undefined;
}

export function paramsOf(tool: Tool): Param[] {
  const required = new Set(tool.parameters.required ?? []);
  return Object.entries(tool.parameters.properties ?? {}).flatMap(([name, raw]) => {
    const schema = deref(raw as JsonSchema, tool.parameters);
    if (!schema) return [];
    const ws = name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    // The whole name too: a task writes it as one word (`with accountId "…"`), and `near` reads it so.
    return [
      {
        name,
        required: required.has(name),
        schema,
        type: typeOf(schema),
        words: new Set([...ws, ...ws.map(stem), name.toLowerCase()]),
      },
    ];
  });
}

/** `used`: the texts of the values given so far, across passes; each is given to one parameter only. */
function assign(
  params: Param[],
  text: string,
  args: Record<string, unknown>,
  tiedOnly: boolean,
  used: Set<string>,
): void {
  const candidates = candidatesIn(text).filter((c) => !used.has(c.text));
  const pairs: { param: Param; candidate?: Candidate; value: unknown; score: number }[] = [];
  for (const param of params) {
    for (const match of enumMatches(param, text)) pairs.push({ param, value: match, score: 10 });
    for (const candidate of candidates) {
      const fit = compatibility(param, candidate);
      if (!fit) continue;
      const close = near(param, text, candidate);
      if (tiedOnly && !close) continue;
      const score = fit.score + (close ? PROXIMITY_BONUS : 0);
      if (score < (param.required ? 1 : OPTIONAL_MIN)) continue;
      pairs.push({ param, candidate, value: fit.value, score });
    }
  }
  pairs.sort(
    (a, b) =>
      b.score - a.score ||
      Number(b.param.required) - Number(a.param.required) ||
      (a.candidate?.start ?? 0) - (b.candidate?.start ?? 0),
  );
  const claimed = new Set<Candidate>();
  for (const pair of pairs) {
    if (pair.param.name in args || (pair.candidate && claimed.has(pair.candidate))) continue;
    args[pair.param.name] = pair.value;
    if (pair.candidate) {
      claimed.add(pair.candidate);
      used.add(pair.candidate.text);
    }
  }
}

/** Literal values in the text, each span claimed by the first pattern that matches it. */
export function candidatesIn(text: string): Candidate[] {
  const out: Candidate[] = [];
  const taken: [number, number][] = [];
  const overlaps = (start: number, end: number) => taken.some(([s, e]) => start < e && end > s);
  for (const [kind, pattern] of PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (overlaps(start, end)) continue;
      const value = kind === 'quoted' ? (m[1] ?? m[2] ?? m[3] ?? '') : m[0];
      // A capitalized word opening a sentence is usually just the sentence's first word.
      const prefix = text.slice(0, start);
      if (kind === 'proper' && (prefix.trim() === '' || /[.!?]\s*$/.test(prefix))) continue;
      taken.push([start, end]);
      out.push({ kind, text: value, start, end });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

export function compatibility(param: Param, candidate: Candidate): { score: number; value: unknown } | undefined {
  const { schema } = param;
  if (param.type === 'array') {
    const items = asRecord(schema.items);
    const inner = items ? compatibility({ ...param, schema: items, type: typeOf(items) }, candidate) : undefined;
    return inner ? { score: inner.score, value: [inner.value] } : undefined;
  }
  if (Array.isArray(schema.enum)) return undefined;
  if (param.type === 'integer' || param.type === 'number') {
    if (candidate.kind !== 'number') return undefined;
    const n = Number(candidate.text);
    if (param.type === 'integer' && !Number.isInteger(n)) return undefined;
    if (typeof schema.minimum === 'number' && n < schema.minimum) return undefined;
    if (typeof schema.maximum === 'number' && n > schema.maximum) return undefined;
    return { score: 3, value: n };
  }
  if (param.type === 'boolean' || param.type === 'object') return undefined;
  const format = typeof schema.format === 'string' ? schema.format : '';
  if (format === 'email') return candidate.kind === 'email' ? { score: 8, value: candidate.text } : undefined;
  if (format === 'date' || format === 'date-time')
    return candidate.kind === 'date' ? { score: 8, value: candidate.text } : undefined;
  if (format === 'uri' || format === 'url')
    return candidate.kind === 'url' ? { score: 8, value: candidate.text } : undefined;
  const hinted = [...param.words].some((w) => NAME_HINTS[candidate.kind].has(w));
  const base: Record<Kind, [number, number]> = {
    quoted: [3, 6],
    email: [1, 7],
    url: [1, 6],
    date: [1, 6],
    id: [2, 5],
    number: [1, 2],
    code: [1, 5],
    proper: [1, 5],
  };
  const [plain, withHint] = base[candidate.kind];
  return { score: hinted ? withHint : plain, value: candidate.text };
}

/** Enum values of the parameter that the text names as whole words. */
export function enumMatches(param: Param, text: string): unknown[] {
  const values = Array.isArray(param.schema.enum) ? param.schema.enum : [];
  const lower = text.toLowerCase();
  return values.filter(
    (v) =>
      typeof v === 'string' &&
      v.length > 1 &&
      new RegExp(`(^|[^a-z0-9])${escapeRegExp(v.toLowerCase())}($|[^a-z0-9])`).test(lower),
  );
}

/** Whether the parameter's name appears among the few words before the value (or right after a number: "3 days"). */
export function near(param: Param, text: string, candidate: Candidate): boolean {
  const before = text
    .slice(0, candidate.start)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(-PROXIMITY_WORDS);
  const after =
    candidate.kind === 'number'
      ? text
          .slice(candidate.end)
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter(Boolean)
          .slice(0, 1)
      : [];
  return [...before, ...after].some((w) => w.length > 1 && (param.words.has(w) || param.words.has(stem(w))));
}

function typeOf(schema: Record<string, unknown>): string {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') as string | undefined) ?? 'any';
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return 'any';
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
