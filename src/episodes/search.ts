import { LRUCache } from 'lru-cache';
import type { SearchResult, ToolSearch } from '../retrieval/searcher.js';
import type { Tool } from '../library/tool.js';
import type { SearchHit } from '../wire/episodes.js';

/** The server's one ToolSearch, loaded on first use (shared with `POST /v1/search`). */
export type SearchLoader = () => Promise<ToolSearch>;

/** ToolSearch's largest k (its MAX_K; the module itself is loaded only on the first search). */
const MAX_DEPTH = 1000;
/** First depth searched for an episode restricted to a tool set; it grows fourfold until k of them are found. */
const RESTRICTED_DEPTH = 64;
/** Searches remembered per index, and results held by them together (about 200 bytes each: some 13 MB). */
const REMEMBERED_SEARCHES = 4096;
const REMEMBERED_RESULTS = 65_536;

/**
 * Recent results per index. The index does not change while it is served, so a query searched again — the
 * rollouts of one GRPO group explore the same task, and often write the same queries — gets the same results
 * without scoring 50,011 tools again (about 0.6 ms a search).
 */
const remembered = new WeakMap<ToolSearch, LRUCache<string, SearchResult[]>>();

async function ranked(search: ToolSearch, query: string, depth: number): Promise<SearchResult[]> {
  let memo = remembered.get(search);
  if (!memo)
    remembered.set(
      search,
      (memo = new LRUCache({
        max: REMEMBERED_SEARCHES,
        maxSize: REMEMBERED_RESULTS,
        sizeCalculation: (results) => results.length + 1,
      })),
    );
  const key = `${depth}\u0000${query}`;
  let found = memo.get(key);
  if (!found) {
    [found = []] = await search.search([query], { k: depth });
    memo.set(key, found);
  }
  return found;
}

/**
 * The top-k tools for one query (BM25, as `POST /v1/search` by default), with their descriptions. For an episode
 * restricted to `only`, the search over-fetches and keeps members of the set, widening until k are found, the
 * retriever runs out of matches, or MAX_DEPTH results were looked at: a member ranked below that is not found.
 */
export async function searchTools(
  search: ToolSearch,
  library: { get(id: string): Tool | undefined },
  query: string,
  k: number,
  only?: ReadonlySet<string>,
): Promise<SearchHit[]> {
  let depth = only ? Math.min(MAX_DEPTH, Math.max(RESTRICTED_DEPTH, k * 8)) : k;
  for (;;) {
    const found = await ranked(search, query, depth);
    const kept = only ? found.filter((hit) => only.has(hit.id)) : found;
    if (kept.length >= k || found.length < depth || depth >= MAX_DEPTH) {
      return kept.slice(0, k).map((hit) => ({
        id: hit.id,
        name: hit.name,
        description: library.get(hit.id)?.description ?? '',
        category: hit.category,
        score: hit.score,
      }));
    }
    depth = Math.min(MAX_DEPTH, depth * 4);
  }
}
