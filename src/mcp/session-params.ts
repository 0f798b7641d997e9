import type { EpisodeConfig } from '../wire/episodes.js';
import type { LibraryStore } from '../library/store.js';
import { httpProblem } from '../http/problem-response.js';

/** What `tools/list` offers a session: the two meta tools, or library tools as native MCP tools. */
export type Listing =
  | { kind: 'meta' }
  | { kind: 'tools'; ids: readonly string[] }
  | { kind: 'category'; category: string }
  | { kind: 'working-set' };

/** A session's set-up, read from the query string of its initialize request. */
export interface SessionParams {
  listing: Listing;
  /** An existing episode to record into; the session then neither opens nor ends one. */
  attach?: string;
  /** The episode the session opens when it does not attach. */
  config: EpisodeConfig;
}

/** Most ids `?tools=` may name; a longer list belongs in a category or an episode's working set. */
export const MAX_LISTED_IDS = 256;

const KNOWN = ['episode', 'seed', 'error_rate', 'max_steps', 'tools', 'category', 'working_set'];
const NUMERIC = ['seed', 'error_rate', 'max_steps'] as const;

/**
 * Reads `?episode=ID | seed=&error_rate=&max_steps=` and at most one of `tools=ID,ID…`, `category=NAME`,
 * `working_set=true`. Throws a 400 problem naming the parameter that is wrong.
 */
export function readSessionParams(query: URLSearchParams, store: LibraryStore): SessionParams {
  for (const name of new Set(query.keys())) {
    if (!KNOWN.includes(name))
      throw invalid(`unknown query parameter ${JSON.stringify(name)}; /mcp takes ${KNOWN.join(', ')}`);
    if (query.getAll(name).length > 1) throw invalid(`query parameter ${JSON.stringify(name)} is given more than once`);
  }
  const config: EpisodeConfig = {};
  for (const name of NUMERIC) {
    const text = query.get(name);
    if (text === null) continue;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value))
      throw invalid(`${name} must be a number, got ${JSON.stringify(text)}`);
    config[name] = value;
  }
  const attach = query.get('episode') ?? undefined;
  if (attach !== undefined && Object.keys(config).length > 0) {
    throw invalid(
      'seed, error_rate and max_steps configure a new episode; ' +
        'a session attached with ?episode= records into that episode as it is',
    );
  }
  if (attach === '') throw invalid('episode must be an episode id');
  return { listing: readListing(query, store), attach, config };
}

/** What a stateless-era request is served, read from its URL and headers anew on every request. */
export interface ModernParams {
  listing: Listing;
  /** The episode its tool calls record into; a request may name none. */
  episode?: string;
}

/**
 * Reads the listing parameters of `/mcp` and the episode, named by `?episode=` or the `x-toolenv-episode` header
 * (both, if they agree). A stateless request neither opens nor ends an episode, so the parameters that configure a
 * new one are refused. Throws a 400 problem naming what is wrong.
 */
export function readModernParams(
  query: URLSearchParams,
  episodeHeader: string | undefined,
  store: LibraryStore,
): ModernParams {
  const { listing, attach, config } = readSessionParams(query, store);
  if (Object.keys(config).length > 0) {
    throw invalid(
      'seed, error_rate and max_steps configure a new episode, which a 2026-07-28 request does not open; create it ' +
        'with POST /v1/episodes and name it with the x-toolenv-episode header or ?episode=',
    );
  }
  if (episodeHeader === '') throw invalid('the x-toolenv-episode header must be an episode id');
  if (attach !== undefined && episodeHeader !== undefined && attach !== episodeHeader) {
    throw invalid(
      `?episode=${attach} and the x-toolenv-episode header ` +
        `${JSON.stringify(episodeHeader)} name different episodes; name one`,
    );
  }
  const episode = attach ?? episodeHeader;
  if (listing.kind === 'working-set' && episode === undefined) {
    throw invalid(
      "working_set lists an episode's working set: name the episode with the x-toolenv-episode header or ?episode=",
    );
  }
  return { listing, ...(episode === undefined ? {} : { episode }) };
}

function readListing(query: URLSearchParams, store: LibraryStore): Listing {
  const given = ['tools', 'category', 'working_set'].filter((name) => query.has(name));
  if (given.length > 1)
    throw invalid(`give at most one of tools, category and working_set, got ${given.join(' and ')}`);
  const tools = query.get('tools');
  if (tools !== null) {
    const ids = [
      ...new Set(
        tools
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      ),
    ];
    if (ids.length === 0) throw invalid('tools must list tool ids, comma-separated');
    if (ids.length > MAX_LISTED_IDS)
      throw invalid(
        `tools lists at most ${MAX_LISTED_IDS} ids, got ${ids.length}; use category or working_set for more`,
      );
    const unknown = ids.filter((id) => !store.has(id));
    if (unknown.length > 0)
      throw invalid(
        `tools names ${unknown.length} id(s) the library does not hold: ${unknown
          .slice(0, 10)
          .map((id) => JSON.stringify(id))
          .join(', ')}`,
      );
    return { kind: 'tools', ids };
  }
  const category = query.get('category');
  if (category !== null) {
    if (store.list({ category, limit: 1 }).tools.length === 0) {
      const known = store.stats().categories.map((entry) => entry.category);
      throw invalid(
        `no tools in category ${JSON.stringify(category)}; the library has ${known.length}: ` +
          `${known.slice(0, 40).join(', ')}${known.length > 40 ? ', …' : ''}`,
      );
    }
    return { kind: 'category', category };
  }
  const workingSet = query.get('working_set');
  if (workingSet !== null) {
    if (workingSet !== 'true' && workingSet !== '1' && workingSet !== '')
      throw invalid(`working_set takes no value or true, got ${JSON.stringify(workingSet)}`);
    return { kind: 'working-set' };
  }
  return { kind: 'meta' };
}

function invalid(detail: string) {
  return httpProblem(400, detail, { title: 'Invalid MCP session parameter' });
}
