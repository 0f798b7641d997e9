import type { Tool } from '../../library/tool.js';
import type { Arguments } from '../types.js';
import { lastWord, nameKey, singular } from './names.js';

/** What a response repeats from its request: asking for pet 42 returns pet 42, filtering by status returns that status. */
export interface Echo {
  /** Primitive argument values by name key (`userId` and `user_id` alike); body fields one level down count too. */
  byKey: Map<string, unknown>;
  /** The id the request names its resource by (`petId` of `GET /pets/{petId}`): becomes the record's `id`. */
  resourceId: unknown;
  /** Name keys of the tool's resource (`pet`, `pets`): objects under them are records. */
  resources: Set<string>;
  /** A page size the request asked for (`limit`, `per_page`…), capped; list lengths follow it. */
  listSize: number | undefined;
}

const LIST_SIZE_KEYS = new Set(['limit', 'page_size', 'pagesize', 'per_page', 'perpage', 'max_results', 'maxresults', 'num_results', 'results_per_page', 'top', 'max_items', 'max_count', 'size', 'count', 'n', 'first', 'rows', 'take', 'hits_per_page', 'items_per_page']);
const MAX_LIST = 10;
const VERBS = new Set(['get', 'list', 'search', 'find', 'fetch', 'retrieve', 'read', 'show', 'create', 'add', 'new', 'post', 'put', 'update', 'patch', 'edit', 'set', 'delete', 'remove', 'query', 'lookup', 'all', 'by', 'id', 'for', 'of', 'the', 'a', 'an', 'v1', 'v2', 'v3', 'api']);

const isPrimitive = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The nouns a tool is about: its path's last literal segment for REST tools, else its name less the verbs. */
function resourceNouns(tool: Tool): string[] {
  if (tool.origin.format === 'openapi') {
    const segments = tool.origin.path.split('/').filter((segment) => segment && !segment.startsWith('{'));
    const noun = segments[segments.length - 1];
    if (noun) return [nameKey(noun)];
  }
  const words = nameKey(tool.id.split('__').pop() ?? tool.name).split('_').filter((word) => word && !VERBS.has(word));
  return words.length ? [words[words.length - 1]!] : [];
}

function resourceId(tool: Tool, args: Arguments): unknown {
  if (tool.origin.format === 'openapi') {
    const match = /\{([^}]+)\}\/?$/.exec(tool.origin.path);
    if (!match) return undefined;
    const wire = match[1]!;
    const property = Object.entries(tool.bindings ?? {}).find(([, binding]) => binding.in === 'path' && binding.name === wire)?.[0] ?? wire;
    const value = args[property];
    return isPrimitive(value) ? value : undefined;
  }
  if (isPrimitive(args.id)) return args.id;
  const ids = Object.keys(args).filter((key) => lastWord(nameKey(key)) === 'id' && isPrimitive(args[key]));
  return ids.length === 1 ? args[ids[0]!] : undefined;
}

function listSize(args: Arguments): number | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (!LIST_SIZE_KEYS.has(nameKey(key))) continue;
    const size = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof size === 'number' && Number.isInteger(size) && size > 0) return Math.min(size, MAX_LIST);
  }
  return undefined;
}

export function echoFrom(tool: Tool, args: Arguments): Echo {
  const byKey = new Map<string, unknown>();
  const nested: [string, unknown][] = [];
  for (const [key, value] of Object.entries(args)) {
    if (isPrimitive(value)) byKey.set(nameKey(key), value);
    else if (value && typeof value === 'object' && !Array.isArray(value)) nested.push(...Object.entries(value));
  }
  for (const [key, value] of nested) if (isPrimitive(value) && !byKey.has(nameKey(key))) byKey.set(nameKey(key), value);
  const resources = new Set<string>();
  for (const noun of resourceNouns(tool)) {
    resources.add(noun);
    resources.add(singular(noun));
  }
  return { byKey, resourceId: resourceId(tool, args), resources, listSize: listSize(args) };
}
