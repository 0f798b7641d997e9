import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EpisodeError } from '../episodes/errors.js';
import type { GroupStore } from '../episodes/groups.js';
import type { RewardContext } from '../episodes/rewards.js';
import type { EpisodeStore } from '../episodes/store.js';
import { GRAPH_FILE, GraphError, openGraph, type Graph } from '../graph/store.js';
import { httpProblem } from '../http/problem-response.js';
import type { AnswerJudge } from '../rl/judge.js';
import type { LibraryStore } from '../library/store.js';
import type { IndexMissingError, SearchError, ToolSearch, ToolSearchOptions } from '../retrieval/searcher.js';
import { LexicalBuild } from './index-build.js';
import type { Simulator } from '../simulator/types.js';
import type { HttpMetrics } from './http-metrics.js';
import type { OpenEnv } from './openenv/env.js';
import type { RestCatalog } from './rest/catalog.js';
import type { SecurityMode } from './rest/security.js';

/** What every route module gets: the library, the simulator, and the server's shared state. */
export interface AppContext {
  store: LibraryStore;
  simulator: Simulator;
  /** Tools in the library, counted once: the library does not change while it is served. */
  tools: number;
  /** The synthesis seed (`serve --seed`): what synthesized bodies, and so synthesized tasks' answers, depend on. */
  seed: number;
  simulatorMetrics: { toPrometheus(): string } | undefined;
  httpMetrics: HttpMetrics;
  catalog: RestCatalog;
  maxBatch: number;
  /** Whether requests need the API key. */
  auth: boolean;
  /** Whether the REST surface refuses requests without the credentials an operation's `security` declares. */
  security: SecurityMode;
  /** The server's one tool search, loaded on first use (`POST /v1/search` and episodes share it). */
  retrieval: RetrievalLoader;
  /** Live episodes; absent when the app was built without a store (startServer always gives one). */
  episodes?: EpisodeStore;
  /** Groups of those episodes (present with `episodes`). */
  groups?: GroupStore;
  /** The library's dependency graph, opened on first use; undefined while none is built. */
  graph: GraphLoader;
  /** Where unexpected errors are logged. */
  log: (line: string) => void;
  /** What episode rewards need: the graph and the judge. */
  rewards: RewardContext;
  /** OpenEnv's contract on those episodes (present with `episodes`). */
  openenv?: OpenEnv;
}

export type GraphLoader = () => Graph | undefined;

/**
 * Opens `graph.db` on the first call that finds it; a graph built while serving is picked up. A file of another version
 * throws GraphError.
 */
export function graphLoader(libraryDir: string): GraphLoader {
  let graph: Graph | undefined;
  return () => (graph ??= existsSync(join(libraryDir, GRAPH_FILE)) ? openGraph(libraryDir) : undefined);
}

/** The graph as routes read it: a file of another version is a 409 problem naming the rebuild, not a 500. */
export function servedGraph(graph: GraphLoader): () => Graph | undefined {
  return () => {
    try {
      return graph();
    } catch (error) {
      if (error instanceof GraphError)
        throw httpProblem(409, error.message, { title: 'Graph not built', extra: { command: 'toolenv graph build' } });
      throw error;
    }
  };
}

/** Most judges a server keeps for specs named in requests: each holds a connection pool's worth of state. */
const MAX_REQUEST_JUDGES = 16;

/**
 * The judge a reward request gets: `false` none, a spec its own judge (kept per spec, a few at most), else the
 * server's `--judge`.
 */
export function judgeChooser(serverJudge: AnswerJudge | undefined): RewardContext['judge'] {
  const named = new Map<string, AnswerJudge>();
  return async (requested) => {
    if (requested === false) return undefined;
    if (requested === undefined) return serverJudge;
    // Loaded by the first request naming a judge (its client and prompts are no part of a start); awaited before the
    // lookup, so that two requests naming one spec share one judge.
    const { createAnswerJudge } = await import('../rl/judge.js');
    let judge = named.get(requested);
    if (!judge) {
      try {
        judge = createAnswerJudge(requested);
      } catch (error) {
        throw new EpisodeError(400, `judge: ${(error as Error).message}`, [
          { path: '/judge', message: (error as Error).message },
        ]);
      }
      if (named.size >= MAX_REQUEST_JUDGES) named.delete(named.keys().next().value!);
      named.set(requested, judge);
    }
    return judge;
  };
}

export interface Retrieval {
  search: ToolSearch;
  SearchError: typeof SearchError;
  IndexMissingError: typeof IndexMissingError;
  /** The lexical index built in a worker thread when missing or stale. */
  lexicalBuild: LexicalBuild;
  /** The search once its lexical index is there, waiting (off the event loop) for a build when it is not. */
  lexicalReady(): Promise<ToolSearch>;
}

export type RetrievalLoader = () => Promise<Retrieval>;

/** How the served search embeds queries for the dense and hybrid retrievers (`serve --embed-model DIR`…). */
export type RetrievalOptions = Pick<
  ToolSearchOptions,
  'embedModel' | 'embedDtype' | 'pooling' | 'queryPrefix' | 'denseWeight'
>;

/**
 * Imports the retrieval module and opens the library's ToolSearch on the first call, once: `serve` starts without
 * it. The search never builds an index itself (autoBuild off): the lexical one is built in a worker thread
 * (LexicalBuild), the dense ones only by `toolenv search index`.
 */
export function retrievalLoader(libraryDir: string, options: RetrievalOptions = {}): RetrievalLoader {
  let loaded: Promise<Retrieval> | undefined;
  return () =>
    (loaded ??= import('../retrieval/searcher.js').then(({ ToolSearch, SearchError, IndexMissingError }) => {
      const search = ToolSearch.open(libraryDir, { ...options, autoBuild: false });
      const lexicalBuild = new LexicalBuild(libraryDir);
      const lexicalReady = async () => {
        try {
          await search.prepare('bm25');
        } catch (error) {
          if (!(error instanceof IndexMissingError)) throw error;
          await lexicalBuild.start();
        }
        return search;
      };
      return { search, SearchError, IndexMissingError, lexicalBuild, lexicalReady };
    }));
}
