import { LibraryStore } from '../library/store.js';
import { makeBenchmark } from './eval.js';
import { bm25File, catalogFile } from './index-paths.js';
import { ToolSearch } from './searcher.js';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface SearchBenchmark {
  tools: number;
  retriever: 'bm25';
  k: number;
  queries: number;
  /** Building the index files now (null when they were current). */
  index_build_s: number | null;
  index_mb: number;
  /** Opening the library's index files and answering a first query. */
  load_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  /** One call with 8 queries: the p95 over repeated batches. */
  batch8_ms: number;
  batch8_p50_ms: number;
  /** Resident memory of the process after loading the index. */
  rss_mb: number;
  /** The machine's 1-minute load average while measuring: latencies on a busy machine are not the code's. */
  loadavg_1m: number;
}

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Latency of the default retriever at k=3 over a library, with queries written from the library itself
 * (the evaluation's paraphrases). Builds the index files first if they are missing or stale.
 */
export async function measureSearch(
  libraryDir: string,
  { queries: count = 400, seed = 7 } = {},
): Promise<SearchBenchmark> {
  const indexing = ToolSearch.open(libraryDir);
  const [report] = await indexing.index('bm25');
  await indexing.close();

  const store = LibraryStore.open(libraryDir);
  const queries = makeBenchmark(store, { size: Math.ceil(count / 3), seed })
    .queries.map((q) => q.query)
    .slice(0, count);
  store.close();

  const loadStarted = process.hrtime.bigint();
  const search = ToolSearch.open(libraryDir, { autoBuild: false });
  search.searchBm25([queries[0]!], { k: 3 });
  const load_ms = ms(loadStarted);
  const rss_mb = Math.round(process.memoryUsage().rss / 1e6);

  for (const q of queries.slice(0, 50)) search.searchBm25([q], { k: 3 });
  const single = queries.map((q) => {
    const started = process.hrtime.bigint();
    search.searchBm25([q], { k: 3 });
    return ms(started);
  });
  const batches: number[] = [];
  for (let i = 0; i + 8 <= queries.length; i += 8) {
    const started = process.hrtime.bigint();
    search.searchBm25(queries.slice(i, i + 8), { k: 3 });
    batches.push(ms(started));
  }
  return {
    tools: report!.tools,
    retriever: 'bm25',
    k: 3,
    queries: queries.length,
    index_build_s: report!.built ? report!.seconds : null,
    index_mb: Math.round((statSync(bm25File(libraryDir)).size + statSync(catalogFile(libraryDir)).size) / 1e5) / 10,
    load_ms: round(load_ms),
    search_p50_ms: round(quantile(single, 0.5)),
    search_p95_ms: round(quantile(single, 0.95)),
    batch8_ms: round(quantile(batches, 0.95)),
    batch8_p50_ms: round(quantile(batches, 0.5)),
    rss_mb,
    loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}
