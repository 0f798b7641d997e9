import type { LibraryStore } from '../library/store.js';
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
}
