import { LibraryStore } from '../library/store.js';
import { makeBenchmark } from './eval.js';
import { bm25File, catalogFile } from './index-paths.js';
import { ToolSearch, type ToolSearchOptions } from './searcher.js';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface SearchBenchmark {
  tools: number;
  retriever: 'bm25' | 'dense' | 'hybrid';
  k: number;
  queries: number;
  /** Building the BM25 index files now (null when they were current; vectors are never built here). */
  index_build_s: number | null;
  /** The index files the retriever reads: catalog and BM25, and the encoder's vectors for dense and hybrid. */
  index_mb: number;
  /** Opening the library's index files (and the encoder) and answering a first query. */
  load_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  /** CPU time of the whole process (every thread) per query over the timed single queries: a busy machine's waits
   * inflate wall latencies, not this. */
  search_cpu_ms: number;
  /** One call with 8 queries: the p95 over repeated batches. */
  batch8_ms: number;
  batch8_p50_ms: number;
  /** CPU time per batch of 8, as search_cpu_ms. */
  batch8_cpu_ms: number;
  /** Resident memory of the process after loading the index. */
  rss_mb: number;
  /** The machine's 1-minute load average while measuring: latencies on a busy machine are not the code's. */
  loadavg_1m: number;
}

export type BenchedRetriever = SearchBenchmark['retriever'];

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const cpuMs = (from: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1000;
};
const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Latency of a retriever (BM25 by default) at k=3 over a library, with queries written from the library itself
 * (the evaluation's paraphrases). Builds the BM25 index files first if they are missing or stale; dense and hybrid
 * need the encoder (options.embedModel) and its vectors built by `toolenv search index`.
 */
export async function measureSearch(
  libraryDir: string,
  {
    queries: count = 400,
    seed = 7,
    retriever = 'bm25',
    ...embed
  }: { queries?: number; seed?: number; retriever?: BenchedRetriever } & Omit<
    ToolSearchOptions,
    'autoBuild' | 'onProgress'
  > = {},
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
  const search = ToolSearch.open(libraryDir, { ...embed, autoBuild: false });
  const run = async (batch: string[]) =>
    retriever === 'bm25' ? search.searchBm25(batch, { k: 3 }) : await search.search(batch, { k: 3, retriever });
  try {
    await run([queries[0]!]);
    const load_ms = ms(loadStarted);
    const rss_mb = Math.round(process.memoryUsage().rss / 1e6);
    const vectors = retriever === 'bm25' ? [] : [await search.vectorFile()];

    for (const q of queries.slice(0, 50)) await run([q]);
    const single: number[] = [];
    const singleCpu = process.cpuUsage();
    for (const q of queries) {
      const started = process.hrtime.bigint();
      await run([q]);
      single.push(ms(started));
    }
    const search_cpu_ms = cpuMs(singleCpu) / queries.length;
    const batches: number[] = [];
    const batchCpu = process.cpuUsage();
    for (let i = 0; i + 8 <= queries.length; i += 8) {
      const started = process.hrtime.bigint();
      await run(queries.slice(i, i + 8));
      batches.push(ms(started));
    }
    const batch8_cpu_ms = cpuMs(batchCpu) / Math.max(1, batches.length);
    return {
      tools: report!.tools,
      retriever,
      k: 3,
      queries: queries.length,
      index_build_s: report!.built ? report!.seconds : null,
      index_mb: round(megabytes([catalogFile(libraryDir), bm25File(libraryDir), ...vectors])),
      load_ms: round(load_ms),
      search_p50_ms: round(quantile(single, 0.5)),
      search_p95_ms: round(quantile(single, 0.95)),
      search_cpu_ms: round(search_cpu_ms),
      batch8_ms: round(quantile(batches, 0.95)),
      batch8_p50_ms: round(quantile(batches, 0.5)),
      batch8_cpu_ms: round(batch8_cpu_ms),
      rss_mb,
      loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
    };
  } finally {
    await search.close();
  }
}

const megabytes = (files: string[]) => files.reduce((sum, file) => sum + statSync(file).size, 0) / 1e6;
