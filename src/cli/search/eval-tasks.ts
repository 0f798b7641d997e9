import { loadTasks } from '../../eval/load.js';
import { mapReferences } from '../../eval/map-references.js';
import type { TaskFormat } from '../../eval/tasks.js';
import { LibraryStore } from '../../library/store.js';
import { storeLibrary } from '../../tasks/stats.js';
import { computeMetrics, type Metrics } from '../../retrieval/metrics.js';
import type { RetrieverName, ToolSearch } from '../../retrieval/searcher.js';

export interface TaskSetScore {
  retriever: RetrieverName;
  overall: Metrics;
  ms_per_query: number;
}

export interface TaskSetReport {
  file: string;
  format: TaskFormat;
  tasks: number;
  /** Tasks scored: those with at least one reference tool the library has. */
  scored: number;
  results: TaskSetScore[];
}

/** Queries per search call: bounds the memory a dense batch takes. */
const BATCH = 64;

/**
 * Retrieval on a task file's own queries (ToolBench, BFCL, API-Bank, MCP or ToolEnv format): each task's query is
 * searched (top 10) through the library's real indexes, and its reference tools, mapped onto the library as
 * `toolenv eval` maps them, are the relevant ones. Tasks none of whose references map are left out.
 */
export async function evaluateTaskFile(
  search: ToolSearch,
  file: string,
  retrievers: readonly RetrieverName[],
  format?: TaskFormat,
): Promise<TaskSetReport> {
  const loaded = loadTasks(file, format);
  const store = LibraryStore.open(search.libraryDir);
  let mapped;
  try {
    mapped = await mapReferences(loaded.tasks, storeLibrary(store));
  } finally {
    store.close();
  }
  const tasks = mapped.filter((t) => (t.task.reference_tools?.length ?? 0) > 0);
  const queries = tasks.map((t) => t.task.query);
  const relevant = tasks.map((t) => t.task.reference_tools!);
  const results: TaskSetScore[] = [];
  for (const retriever of retrievers) {
    await search.prepare(retriever);
    const started = process.hrtime.bigint();
    const ranked: string[][] = [];
    for (let i = 0; i < queries.length; i += BATCH) {
      for (const hits of await search.search(queries.slice(i, i + BATCH), { k: 10, retriever }))
        ranked.push(hits.map((h) => h.id));
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    results.push({
      retriever,
      overall: computeMetrics(ranked, relevant),
      ms_per_query: Math.round((ms / Math.max(1, queries.length)) * 1000) / 1000,
    });
  }
  return { file, format: loaded.format, tasks: loaded.tasks.length, scored: tasks.length, results };
}
