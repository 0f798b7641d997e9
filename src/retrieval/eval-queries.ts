import type { Tool } from '../library/tool.js';

/**
 * Benchmark queries written from the library itself. A query is never a tool's text verbatim: it is the
 * gist of a description or name (first clause, markup stripped), reworded with a synonym table and put in
 * a request template, the way an agent's capability slot reads ("find a way to …"). The synonym table here
 * is the benchmark's own; nothing in the retrievers reads it.
 */

export type QuerySet = 'paraphrase' | 'heldout' | 'multi';

export interface EvalQuery {
  set: QuerySet;
  query: string;
  /** Ids of the tools that answer the query. */
  relevant: string[];
}

/** A seeded generator (mulberry32): the same seed gives the same benchmark. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const SYNONYMS: Record<string, string[]> = {
  get: ['fetch', 'retrieve', 'obtain', 'look up', 'pull'],
  gets: ['fetches', 'retrieves', 'obtains'],
  retrieve: ['get', 'fetch', 'obtain'],
  retrieves: ['gets', 'fetches', 'obtains'],
  returns: ['gives back', 'provides', 'yields'],
  return: ['give back', 'provide'],
  create: ['make', 'add', 'set up', 'generate'],
  creates: ['makes', 'adds', 'sets up'],
  add: ['create', 'insert', 'append'],
  adds: ['inserts', 'appends'],
  delete: ['remove', 'erase', 'get rid of', 'discard'],
  deletes: ['removes', 'erases', 'discards'],
  remove: ['delete', 'drop', 'take out'],
  removes: ['deletes', 'drops'],
  update: ['modify', 'change', 'edit', 'revise'],
  updates: ['modifies', 'changes', 'edits'],
  search: ['look for', 'find', 'query', 'hunt for'],
  searches: ['looks for', 'finds', 'queries'],
  find: ['locate', 'search for', 'look up'],
  show: ['display', 'present'],
  send: ['transmit', 'dispatch', 'deliver'],
  sends: ['transmits', 'dispatches', 'delivers'],
  upload: ['push', 'transfer'],
  download: ['save', 'pull down'],
  check: ['verify', 'test', 'confirm'],
  information: ['info', 'details', 'data'],
  info: ['information', 'details'],
  details: ['information', 'specifics', 'info'],
  user: ['account', 'member'],
  users: ['accounts', 'members'],
  image: ['picture', 'photo'],
  images: ['pictures', 'photos'],
  file: ['document'],
  files: ['documents'],
  message: ['note', 'text'],
  messages: ['notes', 'texts'],
  specified: ['given', 'chosen', 'particular'],
  specific: ['particular', 'given'],
  existing: ['current', 'present'],
  all: ['every', 'the full set of'],
  new: ['fresh', 'brand-new'],
  identifier: ['id', 'key'],
  id: ['identifier', 'key'],
  number: ['count', 'amount'],
  current: ['present', 'latest'],
  organization: ['company', 'org'],
  organizations: ['companies', 'orgs'],
  company: ['organization', 'business', 'firm'],
  location: ['place', 'position'],
  price: ['cost', 'rate'],
  prices: ['costs', 'rates'],
  settings: ['preferences', 'configuration'],
  status: ['state', 'condition'],
  item: ['entry', 'element'],
  items: ['entries', 'elements'],
};

/** Words that are verbs only at the start of a request ("list the users", not "a list of users"). */
const LEAD_SYNONYMS: Record<string, string[]> = {
  list: ['enumerate', 'show all', 'browse'],
};

const LEAD_VERBS: Record<string, string> = {
  returns: 'get',
  return: 'get',
  retrieves: 'retrieve',
  gets: 'get',
  lists: 'list',
  creates: 'create',
  deletes: 'delete',
  updates: 'update',
  fetches: 'fetch',
};

const TEMPLATES = ['{q}', '{q}', 'I need to {q}', 'how can I {q}', 'tool to {q}', 'a way to {q}', 'help me {q}'];
const API_TEMPLATES = ['{q} using {api}', '{q} with {api}', '{q} on {api}', '{api}: {q}', 'in {api}, {q}'];

/** Markup, links and code stripped; whitespace collapsed. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]+>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/`{1,3}[^`]*`{1,3}/g, ' ')
    .replace(/[*_#>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first clause of a description, at most `maxWords` words. */
export function gist(text: string, maxWords = 16): string {
  const sentence = plainText(text).split(/(?<=[.!?;:])\s|\n/)[0] ?? '';
  return sentence
    .replace(/[.!?;:]+$/, '')
    .split(' ')
    .filter(Boolean)
    .slice(0, maxWords)
    .join(' ');
}

/** Rewords a gist: synonym swaps, an imperative first verb, a request template, sometimes the API's name. */
export function paraphrase(text: string, apiName: string, random: () => number, { mentionApi = 0.35 } = {}): string {
  let words = text.split(' ');
  // "Returns the user" / "This endpoint returns the user" read as requests: "get the user".
  const lead = words.findIndex((w) => LEAD_VERBS[w.toLowerCase()] !== undefined);
  if (lead >= 0 && lead <= 3) words = [LEAD_VERBS[words[lead]!.toLowerCase()]!, ...words.slice(lead + 1)];
  words = words.map((word, i) => {
    const key = word.toLowerCase().replace(/[^a-z]/g, '');
    const options = SYNONYMS[key] ?? (i === 0 ? LEAD_SYNONYMS[key] : undefined);
    return options && random() < 0.6 ? pick(random, options) : word;
  });
  const q = words.join(' ').replace(/^\w/, (c) => c.toLowerCase());
  const api = apiName.trim();
  if (api && random() < mentionApi) return pick(random, API_TEMPLATES).replace('{q}', q).replace('{api}', api);
  return pick(random, TEMPLATES).replace('{q}', q);
}

/** Whether a tool's text says enough to write a query from. */
export function describable(tool: Tool): boolean {
  return querySource(tool).split(' ').length >= 3;
}

/**
 * The text a query is written from: the first sentence of the description that says more than the name
 * (many descriptions open by repeating it), else the name.
 */
export function querySource(tool: Tool): string {
  const name = gist(tool.name.replace(/[_-]+/g, ' '));
  const sentences = plainText(tool.description).split(/(?<=[.!?])\s+/);
  for (const sentence of sentences.slice(0, 3)) {
    const g = gist(sentence);
    if (g.split(' ').length >= 4 && g.toLowerCase() !== name.toLowerCase()) return g;
  }
  return name;
}
