/**
 * Name normalization for matching what one tool returns with what another takes: `petId`, `pet_id`,
 * `PetID` and a pet object's `id` all become the key `pet.id`.
 */

/** Splits camelCase, snake_case, kebab-case, dotted and spaced names into lowercase words. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

const IRREGULAR: Record<string, string> = {
  people: 'person',
  children: 'child',
  men: 'man',
  women: 'woman',
  indices: 'index',
  matrices: 'matrix',
  vertices: 'vertex',
  analyses: 'analysis',
  criteria: 'criterion',
  media: 'media',
  data: 'data',
  series: 'series',
  species: 'species',
  news: 'news',
};

/** English singular of one lowercase word; words that do not look plural come back unchanged. */
export function singular(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length <= 3) return word;
  if (/[^aeiou]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh|zz)es$/.test(word)) return word.slice(0, -2);
  if (/(ss|us|is|ics)$/.test(word)) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/**
 * A resource noun from words: the last word made singular, all run together, so that `customer-accounts`,
 * `customer_account_id` and a `/customeraccounts/{id}` path all say `customeraccount`.
 */
export function nounOf(ws: string[]): string {
  if (ws.length === 0) return '';
  return [...ws.slice(0, -1), singular(ws[ws.length - 1]!)].join('');
}

/**
 * Attributes that identify a resource. Only these make a key that can carry a dependency:
 * `petName` may name the pet B acts on, `petColor` never does.
 */
const ID_ATTRS: Record<string, string> = {
  id: 'id',
  ids: 'id',
  uuid: 'uuid',
  uuids: 'uuid',
  guid: 'guid',
  key: 'key',
  keys: 'key',
  code: 'code',
  codes: 'code',
  slug: 'slug',
  number: 'number',
  no: 'number',
  num: 'number',
  name: 'name',
  names: 'name',
  handle: 'handle',
  token: 'token',
  sid: 'sid',
  ref: 'ref',
  sha: 'sha',
  hash: 'hash',
  login: 'login',
  username: 'username',
};

export function idAttr(word: string): string | undefined {
  return Object.hasOwn(ID_ATTRS, word) ? ID_ATTRS[word] : undefined;
}

/** Attributes that identify a resource on their own; a name or a number may repeat from one API to the next. */
const UNIQUE_ATTRS = new Set(['id', 'uuid', 'guid', 'key', 'sid', 'slug', 'token']);

export function isUniqueAttr(attr: string): boolean {
  return UNIQUE_ATTRS.has(attr);
}

/** Words that say what a schema is, not what it describes: `PetResponse`, `UserDto`, `usergroups.disable schema`. */
const SCHEMA_WORDS = new Set([
  'schema',
  'response',
  'responses',
  'result',
  'results',
  'model',
  'dto',
  'object',
  'resource',
  'output',
  'data',
  'entity',
  'info',
  'details',
  'detail',
  'item',
  'list',
  'collection',
  'page',
  'wrapper',
  'envelope',
  'body',
  'payload',
  'view',
  'summary',
]);

/** The resource noun a schema title names, if any (`PetResponse` → `pet`, `usergroups.disable schema` → undefined). */
export function titleNoun(title: string): string | undefined {
  const ws = words(title);
  while (ws.length > 0 && SCHEMA_WORDS.has(ws[ws.length - 1]!)) ws.pop();
  if (ws.length === 0 || ws.some(isVerb)) return undefined;
  return nounOf(ws);
}

/**
 * Nouns that qualify nothing: `x_request_id`, `page_token`, `parent_id` and `external_id` do not say which
 * resource they point at, so they must not connect tools.
 */
const VAGUE_NOUNS = new Set([
  'x',
  'xrequest',
  'api',
  'request',
  'correlation',
  'idempotency',
  'trace',
  'span',
  'transactiontrace',
  'page',
  'next',
  'nextpage',
  'prev',
  'previous',
  'continuation',
  'cursor',
  'start',
  'end',
  'first',
  'last',
  'parent',
  'external',
  'clientrequest',
  'object',
  'item',
  'entity',
  'resource',
  'target',
  'source',
  'ref',
  'reference',
  'foreign',
  'other',
  'new',
  'old',
  'current',
  'my',
  'the',
  'sort',
  'orderby',
  'groupby',
  'query',
  'search',
  'filter',
  'field',
  'version',
  'apiversion',
  'locale',
  'language',
  'lang',
  'format',
  'callback',
  'nonce',
  'state',
  'redirect',
  'response',
  'result',
  'data',
  'value',
  'type',
  'kind',
  'class',
  'file',
  'path',
  'url',
  'uri',
  'link',
  'devicetoken',
  'push',
  'access',
  'refresh',
  'bearer',
  'auth',
  'oauth',
  'session',
  'csrf',
  'upload',
  'batch',
]);

export function isVagueNoun(noun: string): boolean {
  return noun === '' || VAGUE_NOUNS.has(noun) || /^\d/.test(noun);
}

/**
 * Single words that a path parameter may hold without naming a resource (`/pets/{format}`, `/reports/{year}`):
 * the caller picks these values, no previous call produces them.
 */
const AMBIENT_WORDS = new Set([
  'format',
  'version',
  'lang',
  'language',
  'locale',
  'type',
  'kind',
  'status',
  'state',
  'mode',
  'page',
  'limit',
  'offset',
  'size',
  'year',
  'month',
  'day',
  'week',
  'date',
  'time',
  'from',
  'to',
  'start',
  'end',
  'since',
  'until',
  'sort',
  'order',
  'query',
  'q',
  'term',
  'keyword',
  'keywords',
  'text',
  'search',
  'filter',
  'fields',
  'count',
  'level',
  'period',
  'interval',
  'range',
  'unit',
  'units',
  'currency',
  'country',
  'region',
  'zone',
  'city',
  'lat',
  'lon',
  'lng',
  'latitude',
  'longitude',
  'width',
  'height',
  'scope',
  'action',
  'operation',
  'method',
  'path',
  'file',
  'filename',
  'extension',
  'ext',
  'environment',
  'env',
  'tz',
  'timezone',
]);

/** The normalized form of a parameter name used for the ambient check (`X-Request-Id` → `x_request_id`). */
export function snake(name: string): string {
  return words(name).join('_');
}

export function isAmbientWord(name: string): boolean {
  return AMBIENT_WORDS.has(snake(name));
}

/**
 * Property names that only wrap a payload (`{data: [...]}`, JSON:API `relationships`): what is inside keeps its owner.
 */
const WRAPPERS = new Set([
  'data',
  'result',
  'results',
  'response',
  'payload',
  'body',
  'content',
  'contents',
  'value',
  'values',
  'output',
  'return',
  'embedded',
  'attributes',
  'relationships',
  'nodes',
  'node',
  'edges',
  'resource',
  'resources',
  'object',
  'objects',
  'collection',
]);

/** Names that wrap a list at the top of a response but name a real thing inside an object (an order's `items`). */
const TOP_WRAPPERS = new Set([
  'items',
  'item',
  'records',
  'record',
  'entries',
  'entry',
  'list',
  'hits',
  'docs',
  'rows',
  'elements',
  'page',
]);

export function isWrapper(property: string, top: boolean): boolean {
  const name = snake(property);
  return WRAPPERS.has(name) || (top && TOP_WRAPPERS.has(name));
}

/** Words that open an action rather than name a resource: `findByStatus`, `search`, `uploadImage`. */
const VERBS = new Set([
  'get',
  'list',
  'find',
  'search',
  'create',
  'add',
  'new',
  'update',
  'edit',
  'modify',
  'patch',
  'put',
  'post',
  'delete',
  'remove',
  'del',
  'query',
  'lookup',
  'fetch',
  'retrieve',
  'read',
  'set',
  'upload',
  'download',
  'check',
  'validate',
  'verify',
  'count',
  'export',
  'import',
  'generate',
  'send',
  'start',
  'stop',
  'run',
  'execute',
  'exec',
  'cancel',
  'submit',
  'register',
  'login',
  'logout',
  'sign',
  'signin',
  'signup',
  'reset',
  'enable',
  'disable',
  'activate',
  'deactivate',
  'approve',
  'reject',
  'publish',
  'unpublish',
  'archive',
  'restore',
  'sync',
  'refresh',
  'replace',
  'move',
  'copy',
  'clone',
  'assign',
  'unassign',
  'attach',
  'detach',
  'subscribe',
  'unsubscribe',
  'invite',
  'accept',
  'decline',
  'close',
  'open',
  'lock',
  'unlock',
  'test',
  'preview',
  'convert',
  'calculate',
  'compute',
  'estimate',
  'resolve',
  'show',
  'view',
  'describe',
  'batch',
  'bulk',
  'do',
  'make',
  'is',
  'has',
  'by',
  'for',
  'all',
  'me',
  'my',
  'self',
  'current',
  'info',
  'details',
  'detail',
  'summary',
  'stats',
  'statistics',
  'status',
]);

export function isVerb(word: string): boolean {
  return VERBS.has(word);
}

/** Path segments that version or prefix an API rather than name a resource. */
export function isPathPrefix(segment: string): boolean {
  return /^(v\d+[.\d]*([a-z]+\d*)*|api|apis|rest|public|private|internal|latest|beta|alpha|[\d.-]+)$/i.test(segment);
}
