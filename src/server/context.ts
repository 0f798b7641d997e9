import type { EpisodeStore } from '../episodes/store.js';
import type { LibraryStore } from '../library/store.js';
import type { SearchError, ToolSearch } from '../retrieval/searcher.js';
import type { Simulator } from '../simulator/types.js';
import type { HttpMetrics } from './http-metrics.js';
import type { RestCatalog } from './rest/catalog.js';

/** What every route module gets: the library, the simulator, and the server's shared state. */
export interface AppContext {
  store: LibraryStore;
  simulator: Simulator;
  /** Tools in the library, counted once: the library does not change while it is served. */
  tools: number;
  simulatorMetrics: { toPrometheus(): string } | undefined;
  httpMetrics: HttpMetrics;
  catalog: RestCatalog;
  maxBatch: number;
  /** Whether requests need the API key. */
  auth: boolean;
  /** The server's one tool search, loaded on first use (`POST /v1/search` and episodes share it). */
  retrieval: RetrievalLoader;
  /** Live episodes; absent when the app was built without a store (startServer always gives one). */
  episodes?: EpisodeStore;
}

export interface Retrieval {
  search: ToolSearch;
  SearchError: typeof SearchError;
}

export type RetrievalLoader = () => Promise<Retrieval>;

/** Imports the retrieval module and opens the library's ToolSearch on the first call, once: `serve` starts without it. */
export function retrievalLoader(libraryDir: string): RetrievalLoader {
  let loaded: Promise<Retrieval> | undefined;
  return () => (loaded ??= import('../retrieval/searcher.js').then(({ ToolSearch, SearchError }) => ({ search: ToolSearch.open(libraryDir), SearchError })));
}
