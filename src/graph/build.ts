/**
 * Builds G_dep for a library: read every tool once into features, generate candidates from the key and path
 * indexes and from OpenAPI links, merge them to one edge per ordered pair, optionally let judges vote, and write
 * `graph.db`.
 */
import { performance } from 'node:perf_hooks';
import { LibraryStore } from '../library/store.js';
import { keyMatches, pathIndex, DEFAULT_LIMITS, type MatchLimits } from './candidates.js';
import { ADMISSION_THRESHOLD, mergeCandidates, type Edge } from './edge.js';
import { toolFeatures, type ToolFeatures } from './features.js';
import { createEdges, dataflowEdges } from './hard-rules.js';
import { judgeCandidates, type JudgeOptions } from './judge.js';
import { linkEdges } from './links.js';
import { listGetEdges, optionalInputEdges, sharedReferenceEdges, writeReadEdges } from './soft-rules.js';
import type { GraphStats } from './stats.js';
import { openGraph, writeGraph } from './store.js';

export type BuildPhase = 'tools' | 'links' | 'rules' | 'judge' | 'write';

export interface BuildOptions {
  limits?: MatchLimits;
  /** Let judges decide every candidate instead of admitting rule priors at the threshold. */
  judge?: JudgeOptions;
  onProgress?: (phase: BuildPhase, done: number, total: number) => void;
}

export interface BuildReport {
  library: string;
  file: string;
  tools: number;
  /** Candidate pairs after merging, before admission. */
  candidates: number;
  /** Index entries skipped as too common (see MatchLimits). */
  skipped_keys: number;
  judged: number | null;
  ms: number;
  stats: GraphStats;
}

export async function buildGraph(libraryDir: string, options: BuildOptions = {}): Promise<BuildReport> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const store = LibraryStore.open(libraryDir);
  try {
    const total = store.count();
    const { features, routes } = readFeatures(store, (done) => progress('tools', done, total));

    const apis = [...routes.keys()];
    // Lists of candidates, one per rule (and per API for links): a single spread of 10^5 edges would overflow the
    // stack.
    const candidates: Edge[][] = [];
    apis.forEach((apiId, i) => {
      const ops = routes.get(apiId)!;
      candidates.push(
        linkEdges(store.apiDocument(apiId), {
          byOperationId: (op) => ops.get(`#${op}`),
          byRoute: (m, p) => ops.get(`${m} ${p}`),
        }),
      );
      if (i % 50 === 0 || i === apis.length - 1) progress('links', i + 1, apis.length);
    });

    // Each rule is one synchronous pass: a step per rule keeps a log's progress lines coming.
    const RULE_STEPS = 11;
    let step = 0;
    const ruleDone = () => progress('rules', ++step, RULE_STEPS);
    progress('rules', 0, RULE_STEPS);
    const limits = options.limits ?? DEFAULT_LIMITS;
    const local = keyMatches(features, 'api', limits);
    ruleDone();
    const provider = keyMatches(features, 'provider', limits);
    ruleDone();
    const paths = pathIndex(features);
    ruleDone();
    for (const rule of [
      () => dataflowEdges(local.matches, 'api'),
      () => dataflowEdges(provider.matches, 'provider'),
      () => createEdges(features, paths),
      () => optionalInputEdges(local.matches),
      () => sharedReferenceEdges(local.matches),
      () => listGetEdges(features, paths),
      () => writeReadEdges(features, paths),
    ]) {
      candidates.push(rule());
      ruleDone();
    }
    const merged = mergeCandidates(candidates.flat());
    ruleDone();

    let edges: Edge[];
    let judged: number | null = null;
    if (options.judge) {
      const report = await judgeCandidates(merged, (id) => store.get(id), options.judge);
      edges = report.edges;
      judged = report.judged;
    } else {
      edges = merged.filter((e) => e.score >= ADMISSION_THRESHOLD);
    }

    progress('write', 0, 1);
    const ms = Math.round(performance.now() - started);
    const file = writeGraph(libraryDir, {
      nodes: features.map((f) => ({ id: f.id, api: f.group })),
      edges,
      meta: {
        built_at: new Date().toISOString(),
        library_built_at: libraryBuiltAt(store),
        library_tools: String(total),
        candidates: String(merged.length),
        skipped_keys: JSON.stringify([...local.skipped, ...provider.skipped].slice(0, 200)),
        judged: judged === null ? 'no' : String(judged),
        build_ms: String(ms),
      },
    });
    progress('write', 1, 1);
    const graph = openGraph(libraryDir);
    try {
      return {
        library: libraryDir,
        file,
        tools: total,
        candidates: merged.length,
        skipped_keys: local.skipped.length + provider.skipped.length,
        judged,
        ms,
        stats: graph.stats(),
      };
    } finally {
      graph.close();
    }
  } finally {
    store.close();
  }
}

/** When the library itself was built (its `build` meta), so a graph can tell it is older than its library. */
export function libraryBuiltAt(store: LibraryStore): string {
  const build = store.meta('build');
  const at = build ? (JSON.parse(build) as { built_at?: unknown }).built_at : undefined;
  return typeof at === 'string' ? at : '';
}

/** Features of every tool, and per OpenAPI API its operations by `#operationId` and by `method path` (for links). */
function readFeatures(
  store: LibraryStore,
  onProgress: (done: number) => void,
): { features: ToolFeatures[]; routes: Map<string, Map<string, string>> } {
  const providers = new Map<string, string>();
  const providerOf = (apiId: string) => {
    let provider = providers.get(apiId);
    if (provider === undefined) {
      provider = store.api(apiId)?.provider ?? apiId;
      providers.set(apiId, provider);
    }
    return provider;
  };
  const features: ToolFeatures[] = [];
  const routes = new Map<string, Map<string, string>>();
  for (const tool of store.iterate()) {
    const origin = tool.origin;
    if (origin.format === 'openapi') {
      let ops = routes.get(origin.api_id);
      if (!ops) routes.set(origin.api_id, (ops = new Map()));
      ops.set(`${origin.method.toLowerCase()} ${origin.path}`, tool.id);
      if (origin.operation_id) ops.set(`#${origin.operation_id}`, tool.id);
      features.push(toolFeatures(tool, providerOf(origin.api_id)));
    } else {
      features.push(toolFeatures(tool));
    }
    if (features.length % 500 === 0) onProgress(features.length);
  }
  onProgress(features.length);
  return { features, routes };
}
