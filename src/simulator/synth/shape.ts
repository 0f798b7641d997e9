import type { JsonSchema, Tool } from '../../library/tool.js';
import type { Arguments } from '../types.js';
import { nameKey, singular } from './names.js';

/**
 * A response schema for a tool that has none, read from its name and description: a weather tool answers with
 * temperatures, a list tool with a list of records, a create tool with the created record echoing its inputs, a
 * delete tool with a status. The synthesizer then fills it like any other schema, so values stay realistic and echo.
 */
export function shapeSchema(tool: Tool, args: Arguments): JsonSchema {
  const words = nameKey(`${tool.id.split('__').pop() ?? ''} ${tool.name}`).split('_');
  const text = `${words.join(' ')} ${tool.description} ${tool.category}`.toLowerCase();
  const echoed = echoProperties(tool, args);
  const domain = DOMAINS.find(([test]) => test.test(text));
  if (domain) return requireEchoes(domain[1](echoed, args), echoed);
  const noun = resourceNoun(words);
  const record = recordSchema(echoed, args);
  switch (intent(words, tool.description)) {
    case 'list':
      return object(
        { [pluralKey(noun)]: { type: 'array', items: record, minItems: 1 }, total: { type: 'integer', minimum: 0 } },
        [pluralKey(noun), 'total'],
      );
    case 'create':
      return withTimestamp(record, 'created_at');
    case 'update':
      return withTimestamp(record, 'updated_at');
    case 'delete':
      return object(
        { ...pick(record, 'id'), status: { const: 'deleted' }, deleted_at: { type: 'string', format: 'date-time' } },
        ['status'],
      );
    case 'send':
      return object(
        {
          id: { type: 'string', format: 'uuid' },
          status: { enum: ['sent', 'queued', 'delivered'] },
          sent_at: { type: 'string', format: 'date-time' },
          ...echoed,
        },
        ['id', 'status', ...Object.keys(echoed)],
      );
    case 'compute':
      return object({ result: { type: 'number' }, ...echoed }, ['result', ...Object.keys(echoed)]);
    default:
      return record;
  }
}

type Properties = Record<string, JsonSchema>;
type Intent = 'list' | 'get' | 'create' | 'update' | 'delete' | 'send' | 'compute';

const INTENTS: [Intent, Set<string>][] = [
  [
    'list',
    new Set([
      'list',
      'search',
      'find',
      'query',
      'browse',
      'discover',
      'recommend',
      'trending',
      'top',
      'popular',
      'all',
      'filter',
      'explore',
    ]),
  ],
  [
    'create',
    new Set([
      'create',
      'add',
      'new',
      'post',
      'register',
      'upload',
      'submit',
      'insert',
      'make',
      'book',
      'schedule',
      'generate',
      'start',
      'open',
    ]),
  ],
  [
    'update',
    new Set(['update', 'edit', 'modify', 'patch', 'set', 'put', 'change', 'rename', 'replace', 'enable', 'disable']),
  ],
  ['delete', new Set(['delete', 'remove', 'cancel', 'unsubscribe', 'revoke', 'destroy', 'clear', 'archive', 'close'])],
  ['send', new Set(['send', 'notify', 'email', 'sms', 'message', 'publish', 'share', 'tweet', 'reply', 'invite'])],
  ['compute', new Set(['convert', 'calculate', 'compute', 'estimate', 'count', 'sum', 'measure', 'score'])],
  [
    'get',
    new Set(['get', 'fetch', 'retrieve', 'read', 'show', 'lookup', 'check', 'view', 'describe', 'info', 'details']),
  ],
];

function intent(words: string[], description: string): Intent | undefined {
  const first = nameKey(description).split('_')[0] ?? '';
  for (const candidates of [words, [first]]) {
    for (const word of candidates) for (const [kind, verbs] of INTENTS) if (verbs.has(word)) return kind;
  }
  return undefined;
}

const NOT_NOUNS = new Set(
  INTENTS.flatMap(([, verbs]) => [...verbs]).concat([
    'by',
    'id',
    'for',
    'of',
    'the',
    'a',
    'an',
    'to',
    'from',
    'in',
    'on',
    'with',
    'and',
    'v1',
    'v2',
    'v3',
    'api',
    'info',
    'data',
    'details',
  ]),
);

function resourceNoun(words: string[]): string {
  const nouns = words.filter((word) => word && !NOT_NOUNS.has(word) && !/^\d+$/.test(word));
  return singular(nouns[nouns.length - 1] ?? 'item');
}

const pluralKey = (noun: string) =>
  noun === 'item' ? 'items' : noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : noun.endsWith('s') ? noun : `${noun}s`;

function object(properties: Properties, required: string[]): JsonSchema {
  return { type: 'object', properties, required };
}

function pick(schema: JsonSchema, key: string): Properties {
  const properties = (schema as { properties: Properties }).properties;
  return properties[key] === undefined ? {} : { [key]: properties[key] };
}

/** The request's own values always come back: a weather answer names the city it was asked about. */
function requireEchoes(schema: JsonSchema, echoed: Properties): JsonSchema {
  const { required } = schema as { required: string[] };
  return { ...(schema as object), required: [...new Set([...required, ...Object.keys(echoed)])] };
}

function withTimestamp(schema: JsonSchema, key: string): JsonSchema {
  const { properties, required } = schema as { properties: Properties; required: string[] };
  return object({ ...properties, [key]: { type: 'string', format: 'date-time' } }, [...required, key]);
}

const SECRET = /key|token|secret|password|passwd|auth|cookie|signature/i;
const CONTROLS = new Set([
  'limit',
  'offset',
  'page',
  'page_size',
  'per_page',
  'cursor',
  'sort',
  'order',
  'order_by',
  'sort_by',
  'fields',
  'format',
  'lang',
  'callback',
  'count',
  'size',
  'start',
  'skip',
  'top',
]);

/**
 * The request's primitive arguments as response fields (with their parameter schemas), minus paging controls and
 * secrets.
 */
function echoProperties(tool: Tool, args: Arguments): Properties {
  const out: Properties = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null || typeof value === 'object' || SECRET.test(key) || CONTROLS.has(nameKey(key))) continue;
    const declared = tool.parameters.properties?.[key];
    out[key] =
      declared !== undefined && typeof declared === 'object'
        ? declared
        : { type: typeof value === 'number' ? 'number' : typeof value };
  }
  return out;
}

function recordSchema(echoed: Properties, args: Arguments): JsonSchema {
  const idValue = Object.entries(args).find(([key]) => /(?:^|_)id$/.test(nameKey(key)))?.[1];
  const id: JsonSchema = typeof idValue === 'string' ? { type: 'string' } : { type: 'integer', minimum: 1 };
  return object(
    {
      id,
      name: { type: 'string' },
      ...echoed,
      description: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
    },
    ['id', 'name', ...Object.keys(echoed)],
  );
}

const dayCount = (args: Arguments) => {
  const days = Number(args.days ?? args.num_days ?? args.forecast_days);
  return Number.isInteger(days) && days > 0 ? Math.min(days, 14) : 3;
};

const CONDITIONS = [
  'sunny',
  'clear',
  'partly cloudy',
  'cloudy',
  'overcast',
  'light rain',
  'rain',
  'thunderstorms',
  'snow',
  'fog',
  'windy',
];

/** Tools whose kind of answer is known whatever their verb; first match wins. */
const DOMAINS: [RegExp, (echoed: Properties, args: Arguments) => JsonSchema][] = [
  [
    /\bforecast\b/,
    (echoed, args) => {
      const days = dayCount(args);
      const day = object(
        {
          date: { type: 'string', format: 'date' },
          temp_max: { type: 'number' },
          temp_min: { type: 'number' },
          conditions: { enum: CONDITIONS },
          precipitation_probability: { type: 'integer', minimum: 0, maximum: 100 },
          wind_speed: { type: 'number', minimum: 0 },
        },
        ['date', 'temp_max', 'temp_min', 'conditions'],
      );
      return object(
        {
          ...echoed,
          units: { enum: ['metric'] },
          forecast: { type: 'array', items: day, minItems: days, maxItems: days },
        },
        ['forecast'],
      );
    },
  ],
  [
    /\b(?:weather|temperature)\b/,
    (echoed) =>
      object(
        {
          ...echoed,
          temperature: { type: 'number' },
          feels_like: { type: 'number' },
          humidity: { type: 'integer', minimum: 0, maximum: 100 },
          wind_speed: { type: 'number', minimum: 0 },
          conditions: { enum: CONDITIONS },
          units: { enum: ['metric'] },
          observed_at: { type: 'string', format: 'date-time' },
        },
        ['temperature', 'humidity', 'conditions'],
      ),
  ],
  [
    /\b(?:exchange rate|exchange rates|currency|currencies|forex)\b/,
    (echoed) =>
      object(
        {
          ...echoed,
          rate: { type: 'number', minimum: 0.0001 },
          result: { type: 'number' },
          date: { type: 'string', format: 'date' },
        },
        ['rate'],
      ),
  ],
  [
    /\b(?:stock|stocks|quote|quotes|ticker|share price|crypto|cryptocurrency|bitcoin)\b/,
    (echoed) =>
      object(
        {
          symbol: { type: 'string' },
          ...echoed,
          price: { type: 'number', minimum: 0 },
          change: { type: 'number', minimum: -50, maximum: 50 },
          change_percent: { type: 'number', minimum: -20, maximum: 20 },
          currency: { type: 'string' },
          volume: { type: 'integer', minimum: 0 },
          timestamp: { type: 'string', format: 'date-time' },
        },
        ['symbol', 'price'],
      ),
  ],
  [
    /\btranslat/,
    (echoed) =>
      object(
        {
          translated_text: { type: 'string' },
          source_language: { type: 'string' },
          target_language: { type: 'string' },
          ...echoed,
        },
        ['translated_text'],
      ),
  ],
  [
    /\b(?:geocode|geocoding|coordinates|reverse geocod)/,
    (echoed) =>
      object(
        {
          ...echoed,
          latitude: { type: 'number' },
          longitude: { type: 'number' },
          address: { type: 'string' },
          city: { type: 'string' },
          country: { type: 'string' },
        },
        ['latitude', 'longitude'],
      ),
  ],
  [
    /\b(?:news|headlines|articles)\b/,
    (echoed) => {
      const article = object(
        {
          title: { type: 'string' },
          url: { type: 'string', format: 'uri' },
          publisher: { type: 'string' },
          author: { type: 'string' },
          published_at: { type: 'string', format: 'date-time' },
          summary: { type: 'string' },
        },
        ['title', 'url', 'published_at'],
      );
      return object(
        { ...echoed, articles: { type: 'array', items: article, minItems: 1 }, total: { type: 'integer', minimum: 0 } },
        ['articles'],
      );
    },
  ],
  [
    /\bweb search\b|\bsearch the web\b|\bsearch engine\b/,
    (echoed) => {
      const result = object(
        { title: { type: 'string' }, url: { type: 'string', format: 'uri' }, snippet: { type: 'string' } },
        ['title', 'url', 'snippet'],
      );
      return object({ ...echoed, results: { type: 'array', items: result, minItems: 1 } }, ['results']);
    },
  ],
];
