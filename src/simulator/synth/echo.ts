import type { Tool } from '../../library/tool.js';
import type { Arguments } from '../types.js';
import { lastWord, nameKey, pathNoun, segmentKey, singular } from './names.js';

/**
 * What a response repeats from its request: asking for pet 42 returns pet 42, filtering by status returns that status.
 */
export interface Echo {
  /**
   * Primitive argument values by name key (`userId` and `user_id` alike), body fields one level down, and the
   * fields that mean the same thing: `username` as `login`, `issue_number` as `number`, `{owner}/{repo}` as
   * `full_name`.
   */
  byKey: Map<string, unknown>;
  /** Values for a field of an object held by the record (`owner.login` for `{owner}`), by `holder.field` name keys. */
  dotted: Map<string, unknown>;
  /**
   * The request's fields as sent (path, query and body in one object): a created record repeats them where they sit.
   */
  tree: Record<string, unknown> | undefined;
  /** The id the request names its resource by (`petId` of `GET /pets/{petId}`): becomes the record's `id`. */
  resourceId: unknown;
  /** Name keys of the tool's resource (`pet`, `pets`): objects under them are records. */
  resources: Set<string>;
  /** Name keys of the path's other nouns (`groups` of `/groups/picker`): lists under them hold records. */
  collections: Set<string>;
  /** A page size the request asked for (`limit`, `per_page`…), capped; list lengths follow it. */
  listSize: number | undefined;
  /** Free-text searches (`q=weather`): the name or title of every listed record contains them. */
  search: string[] | undefined;
  /** The call reads one existing resource (`GET /pets/{petId}`): it is not deleted, archived or disabled. */
  reads: boolean;
  /** The call lists a collection (a GET whose path ends in a literal): its envelope is a list. */
  listing: boolean;
  /**
   * The resource's type as APIs name it in an `object` discriminator: the path's literal segments after its last
   * parameter, singular, joined by dots (`chat.completion` of `/chat/completions`, `customer` of
   * `/v1/customers/{customer}`, `checkout.session`).
   */
  typeName: string | undefined;
  /** Where the request went, for a listing's links to itself and its pages; undefined for other calls. */
  page: PageLink | undefined;
  /** The request's path with its parameters filled in (`/subscriptions/s1/…/watchers/w1`), for REST tools. */
  path: string | undefined;
  /** The operation takes a list of callables (`tools`, `functions`): its answer calls only those the request sent. */
  takesCallables: boolean;
}

/** A listing request as sent: its path with the parameters filled in, its query, the API's server. */
export interface PageLink {
  path: string;
  query: [string, string][];
  /** The query parameter numbering pages (`Page`, `page`), when the operation declares one. */
  pageParam: string | undefined;
  /** The number of the first page: the parameter's minimum or default, else 1. */
  firstPage: number;
  /** The page asked for: the page parameter as sent, else the first. */
  current: number;
  server: string;
}

/** What `echoFrom` needs of a tool, worked out once per tool record. */
interface Plan {
  resources: Set<string>;
  collections: Set<string>;
  /** The first resource noun, singular (`issue` of `/repos/{owner}/{repo}/issues/{issue_number}`). */
  noun: string | undefined;
  /** The property naming the addressed resource (the template ending the path), for reads and writes alike. */
  idProperty: string | undefined;
  /**
   * The same, except for a POST, which creates something under it: `{repo}` of `GET /repos/{owner}/{repo}` is the
   * repository's `name`.
   */
  addressed: string | undefined;
  /** Properties bound to the whole request body: their fields are top-level names on the wire. */
  wholeBody: Set<string>;
  /** Properties sent as headers or cookies: transport, not data the answer repeats. */
  transport: Set<string>;
  reads: boolean;
  listing: boolean;
  typeName: string | undefined;
  takesCallables: boolean;
}

/** Parameters offering callables to a model (OpenAI's and Anthropic's `tools`, the older `functions`). */
const CALLABLE_LISTS = new Set(['tools', 'functions']);

/** Whether a tool takes a list of callables: a parameter named for them whose schema is a list. */
function takesCallables(tool: Tool): boolean {
  return Object.entries(tool.parameters.properties ?? {}).some(([name, schema]) => {
    if (!CALLABLE_LISTS.has(nameKey(name)) || typeof schema !== 'object') return false;
    return schema.type === 'array' || schema.items !== undefined;
  });
}

/** Keys whose value is the record itself (or a list of them) in an envelope: `{"data": {...}}`, `{"items": [...]}`. */
export const WRAPPERS = new Set([
  'data',
  'result',
  'results',
  'items',
  'item',
  'records',
  'record',
  'entries',
  'entry',
  'list',
  'content',
  'response',
  'payload',
  'value',
  'values',
  'objects',
  'object',
  'hits',
  'resources',
  'resource',
  'rows',
  'docs',
  'documents',
  'matches',
  'nodes',
  'node',
  'edges',
  'elements',
  'collection',
  'body',
]);
/** Fields where a listed result shows what it matched, best first: its name or title, else its text. */
const SEARCHED_FIELDS = [
  'name',
  'title',
  'display_name',
  'full_name',
  'subject',
  'headline',
  'label',
  'caption',
  'short_name',
  'long_name',
  'common_name',
  'product_name',
  'company_name',
  'payee',
  'merchant',
  'merchant_name',
  'summary',
  'snippet',
  'description',
  'text',
  'body',
  'content',
  'message',
  'memo',
  'note',
  'notes',
  'comment',
];
const SEARCH_RANK = new Map(SEARCHED_FIELDS.map((key, rank) => [key, rank]));

/** Of a listed record's fields (as the API names them), the one that shows the search: the best ranked. */
export function searchedField(names: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestRank = Infinity;
  for (const name of names) {
    const rank = SEARCH_RANK.get(nameKey(name));
    if (rank !== undefined && rank < bestRank) [best, bestRank] = [name, rank];
  }
  return best;
}

const LIST_SIZE_KEYS = new Set([
  'limit',
  'page_size',
  'pagesize',
  'per_page',
  'perpage',
  'max_results',
  'maxresults',
  'num_results',
  'results_per_page',
  'top',
  'max_items',
  'max_count',
  'size',
  'count',
  'n',
  'first',
  'rows',
  'take',
  'hits_per_page',
  'items_per_page',
]);
const MAX_LIST = 10;
const VERBS = new Set([
  'get',
  'list',
  'search',
  'find',
  'fetch',
  'retrieve',
  'read',
  'show',
  'create',
  'add',
  'new',
  'post',
  'put',
  'update',
  'patch',
  'edit',
  'set',
  'delete',
  'remove',
  'query',
  'lookup',
  'all',
  'by',
  'id',
  'for',
  'of',
  'the',
  'a',
  'an',
  'v1',
  'v2',
  'v3',
  'api',
]);
/** Free-text search parameters, by name key (`$search` and `$filter` too). */
const SEARCH_KEYS = new Set([
  'q',
  'query',
  'search',
  'search_query',
  'search_term',
  'search_text',
  'searchterm',
  'keyword',
  'keywords',
  'term',
  'terms',
  'filter',
  'name_contains',
  'contains',
]);
/** A filter expression (`name eq 'x'`, `status:open`) is no text to find in names: only plain words are. */
const PLAIN_TEXT = /^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u;

/**
 * Request names and the response fields that mean the same thing, as APIs name them: GitHub's `username` is a
 * user's `login`, `issue_number` an issue's `number`. The request's own name, where the response has it, comes first.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  username: ['login', 'user_name', 'screen_name', 'handle', 'user_login', 'nickname'],
  user_name: ['login', 'username', 'screen_name', 'handle'],
  login: ['username', 'user_name', 'screen_name'],
  screen_name: ['username', 'login', 'handle'],
  handle: ['username', 'login', 'screen_name'],
  user: ['login', 'username', 'user_name'],
  issue_number: ['number'],
  pull_number: ['number'],
  pr_number: ['number'],
  email_address: ['email'],
  email: ['email_address'],
  zip: ['zip_code', 'zipcode', 'postal_code', 'postcode'],
  zip_code: ['zip', 'zipcode', 'postal_code', 'postcode'],
  zipcode: ['zip', 'zip_code', 'postal_code', 'postcode'],
  postal_code: ['zip', 'zip_code', 'zipcode', 'postcode'],
  postcode: ['zip', 'zip_code', 'zipcode', 'postal_code'],
};

/** Synonyms for a field of an object the record holds: the repository's `owner.login`, a key's `user.login`. */
const DOTTED_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  owner: ['owner.login', 'owner.username', 'owner.name'],
  // The repositories of `/orgs/{org}/repos` are owned by that organization.
  org: ['owner.login', 'organization.login', 'org.login'],
  organization: ['owner.login', 'organization.login', 'org.login'],
  username: ['user.login', 'user.username', 'owner.login'],
  user: ['user.login', 'user.username'],
};

/**
 * Synonyms that hold only for the parameter naming the addressed resource: `{org}` of `GET /orgs/{org}` is the org's
 * `login`.
 */
const ADDRESSED_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  org: ['login'],
  organization: ['login'],
  repo: ['name'],
  repository: ['name'],
  repo_slug: ['slug', 'name'],
};

/**
 * Fields a resource-prefixed request name stands for: `issue_number` of an issue is its `number`, `pet_name` of a pet
 * its `name`.
 */
const NOUN_FIELDS = new Set(['number', 'name', 'slug', 'key', 'code', 'uuid', 'handle', 'title']);

const isPrimitive = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The nouns a tool is about: its path's last literal segment for REST tools, else its name less the verbs. */
function resourceNouns(tool: Tool): string[] {
  if (tool.origin.format === 'openapi') {
    const noun = pathNoun(tool.origin.path);
    if (noun) return [noun];
  }
  const words = nameKey(tool.id.split('__').pop() ?? tool.name)
    .split('_')
    .filter((word) => word && !VERBS.has(word));
  return words.length ? [words[words.length - 1]!] : [];
}

function idProperty(tool: Tool): string | undefined {
  if (tool.origin.format !== 'openapi') return undefined;
  const match = /\{([^}]+)\}\/?$/.exec(tool.origin.path);
  if (!match) return undefined;
  const wire = match[1]!;
  return (
    Object.entries(tool.bindings ?? {}).find(([, binding]) => binding.in === 'path' && binding.name === wire)?.[0] ??
    wire
  );
}

/** Segments naming no resource: versions (`v1`, `2010-04-01`) and `api`. */
const NOT_A_TYPE = /^(?:v\d+(?:[._]\d+)*|\d{4}-\d{2}-\d{2}|api|rest)$/i;

function typeNameOf(path: string): string | undefined {
  const segments = path.split('/').filter(Boolean);
  while (segments.length && segments[segments.length - 1]!.startsWith('{')) segments.pop();
  const after = segments.slice(segments.findLastIndex((segment) => segment.startsWith('{')) + 1);
  const words = after
    .filter((segment) => !NOT_A_TYPE.test(segment))
    .map(segmentKey)
    .slice(-2);
  if (!words.length || words.some((word) => word === '')) return undefined;
  words[words.length - 1] = singular(words[words.length - 1]!);
  return words.join('.');
}

const plans = new WeakMap<Tool, Plan>();

function planOf(tool: Tool): Plan {
  let plan = plans.get(tool);
  if (plan) return plan;
  const resources = new Set<string>();
  for (const noun of resourceNouns(tool)) {
    resources.add(noun);
    resources.add(singular(noun));
  }
  const collections = new Set<string>();
  if (tool.origin.format === 'openapi') {
    for (const segment of tool.origin.path.split('/')) {
      if (!segment || segment.startsWith('{')) continue;
      const key = segmentKey(segment);
      if (!resources.has(key)) collections.add(key).add(singular(key));
    }
  }
  const id = idProperty(tool);
  const method = tool.origin.format === 'openapi' ? tool.origin.method.toLowerCase() : '';
  const wholeBody = new Set<string>();
  const transport = new Set<string>();
  for (const [property, binding] of Object.entries(tool.bindings ?? {})) {
    if (binding.in === 'body' && binding.name === '') wholeBody.add(property);
    if (binding.in === 'header' || binding.in === 'cookie') transport.add(property);
  }
  const noun = resourceNouns(tool)[0];
  plan = {
    resources,
    collections,
    noun: noun && singular(noun),
    idProperty: id,
    addressed: method === 'post' ? undefined : id,
    wholeBody,
    transport,
    reads: method === 'get' && id !== undefined,
    listing: method === 'get' && tool.origin.format === 'openapi' && id === undefined,
    typeName: tool.origin.format === 'openapi' ? typeNameOf(tool.origin.path) : undefined,
    takesCallables: takesCallables(tool),
  };
  plans.set(tool, plan);
  return plan;
}

function resourceId(tool: Tool, plan: Plan, args: Arguments): unknown {
  if (tool.origin.format === 'openapi') {
    const value = plan.idProperty === undefined ? undefined : args[plan.idProperty];
    return isPrimitive(value) ? value : undefined;
  }
  if (isPrimitive(args.id)) return args.id;
  const ids = Object.keys(args).filter((key) => lastWord(nameKey(key)) === 'id' && isPrimitive(args[key]));
  return ids.length === 1 ? args[ids[0]!] : undefined;
}

/** The page size a request asks for (`limit`, `per_page`, `PageSize`…): a positive whole number, as sent. */
export function pageSize(args: Record<string, unknown>): number | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (!LIST_SIZE_KEYS.has(nameKey(key))) continue;
    const size = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof size === 'number' && Number.isInteger(size) && size > 0) return size;
  }
  return undefined;
}

function listSize(args: Arguments): number | undefined {
  const size = pageSize(args);
  return size === undefined ? undefined : Math.min(size, MAX_LIST);
}

/**
 * The request as the API receives it: path, query and body fields in one object, a whole-body property's fields at the
 * top.
 */
function wireTree(plan: Plan, args: Arguments): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (plan.transport.has(key)) continue;
    if (plan.wholeBody.has(key) && isObject(value)) Object.assign(tree, value);
    else tree[key] = value;
  }
  return tree;
}

export function echoFrom(tool: Tool, args: Arguments): Echo {
  const plan = planOf(tool);
  const tree = wireTree(plan, args);
  const byKey = new Map<string, unknown>();
  const nested: [string, unknown][] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (isPrimitive(value)) byKey.set(nameKey(key), value);
    else if (isObject(value)) nested.push(...Object.entries(value));
  }
  for (const [key, value] of nested) if (isPrimitive(value) && !byKey.has(nameKey(key))) byKey.set(nameKey(key), value);

  const dotted = new Map<string, unknown>();
  const addressed = plan.addressed === undefined ? undefined : nameKey(plan.addressed);
  let search: string[] | undefined;
  let nounId: unknown;
  for (const [key, value] of [...byKey]) {
    if (value === null) continue;
    for (const synonym of SYNONYMS[key] ?? []) if (!byKey.has(synonym)) byKey.set(synonym, value);
    if (key === addressed)
      for (const synonym of ADDRESSED_SYNONYMS[key] ?? []) if (!byKey.has(synonym)) byKey.set(synonym, value);
    for (const path of DOTTED_SYNONYMS[key] ?? []) if (!dotted.has(path)) dotted.set(path, value);
    if (plan.noun !== undefined && key.startsWith(`${plan.noun}_`) && !SYNONYMS[key]) {
      const field = key.slice(plan.noun.length + 1);
      if (field === 'id') nounId = value;
      else if (NOUN_FIELDS.has(field) && !byKey.has(field)) byKey.set(field, value);
    }
    if (SEARCH_KEYS.has(key) && typeof value === 'string' && value.trim().length >= 2 && PLAIN_TEXT.test(value.trim()))
      (search ??= []).push(value.trim());
  }
  const owner = byKey.get('owner');
  const repo = byKey.get('repo') ?? byKey.get('repository');
  if (isPrimitive(owner) && isPrimitive(repo) && owner !== null && repo !== null && !byKey.has('full_name'))
    byKey.set('full_name', `${owner}/${repo}`);

  return {
    byKey,
    dotted,
    tree,
    resourceId: resourceId(tool, plan, args) ?? nounId,
    resources: plan.resources,
    collections: plan.collections,
    listSize: listSize(args),
    search,
    reads: plan.reads,
    listing: plan.listing,
    typeName: plan.typeName,
    page: plan.listing ? pageLink(tool, args) : undefined,
    path: filledPath(tool, args),
    takesCallables: plan.takesCallables,
  };
}

const PAGE_PARAMS = new Set(['page', 'page_number', 'page_index', 'pageno', 'page_no']);

/** The tool's path with each path parameter's value in place; undefined where one is missing. */
function filledPath(tool: Tool, args: Arguments): string | undefined {
  if (tool.origin.format !== 'openapi') return undefined;
  let path = tool.origin.path;
  for (const [property, binding] of Object.entries(tool.bindings ?? {})) {
    const value = args[property];
    if (binding.in === 'path' && isPrimitive(value) && value !== null)
      path = path.replace(`{${binding.name}}`, encodeURIComponent(String(value)));
  }
  return path.includes('{') ? undefined : path;
}

function pageLink(tool: Tool, args: Arguments): PageLink | undefined {
  const path = filledPath(tool, args);
  if (path === undefined || tool.origin.format !== 'openapi') return undefined;
  const query: [string, string][] = [];
  let pageParam: string | undefined;
  let firstPage = 1;
  for (const [property, binding] of Object.entries(tool.bindings ?? {})) {
    const value = args[property];
    if (binding.in === 'query' && PAGE_PARAMS.has(nameKey(binding.name))) {
      pageParam = binding.name;
      const declared = tool.parameters.properties?.[property] as { minimum?: unknown; default?: unknown } | undefined;
      const first = declared?.minimum ?? declared?.default;
      if (typeof first === 'number' && Number.isInteger(first) && first >= 0) firstPage = first;
    }
    if (value === undefined || value === null || typeof value === 'object') continue;
    if (binding.in === 'query') query.push([binding.name, String(value)]);
  }
  const sent = pageParam === undefined ? undefined : Number(query.find(([name]) => name === pageParam)?.[1]);
  const current = sent !== undefined && Number.isInteger(sent) ? sent : firstPage;
  return { path, query, pageParam, firstPage, current, server: (tool.origin.server ?? '').replace(/\/+$/, '') };
}

/** Request objects' fields by name key, built once per object: every field of every listed record looks them up. */
const indexes = new WeakMap<object, Map<string, unknown>>();

function indexOf(mirror: Record<string, unknown>): Map<string, unknown> {
  let index = indexes.get(mirror);
  if (!index) {
    index = new Map();
    for (const name in mirror)
      if (mirror[name] !== undefined && !index.has(nameKey(name))) index.set(nameKey(name), mirror[name]);
    indexes.set(mirror, index);
  }
  return index;
}

/** The request value at `key` of a request object, its name compared as a name key (`userName` is `user_name`). */
export function mirrorOf(mirror: unknown, key: string): unknown {
  return isObject(mirror) ? indexOf(mirror).get(key) : undefined;
}

/** Name keys of a request object's fields: a created record keeps every field its request set. */
export function mirroredKeys(mirror: unknown): ReadonlyMap<string, unknown> | undefined {
  if (!isObject(mirror)) return undefined;
  const index = indexOf(mirror);
  return index.size ? index : undefined;
}

/**
 * A name or text carrying search terms, the way a matching result shows them: `Weather Station`, `weather-station`,
 * a sentence with the term for its last word.
 */
export function withTerms(value: string, terms: readonly string[]): string {
  return terms.reduce(withTerm, value);
}

function withTerm(value: string, term: string): string {
  if (value.toLowerCase().includes(term.toLowerCase())) return value;
  if (value === '') return term;
  if (!/\s/.test(value) && /[-_]/.test(value)) return `${term.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-')}-${value}`;
  const words = value.split(' ');
  if (words.length >= 4) {
    const [, end = ''] = /([.!?,;:]*)$/.exec(words.at(-1)!) ?? [];
    return `${words.slice(0, -1).join(' ')} ${term}${end}`;
  }
  const lead = /^\p{Lu}/u.test(value) ? term.charAt(0).toUpperCase() + term.slice(1) : term;
  return `${lead} ${value}`;
}
