import { LibraryStore } from '../library/store.js';
import type { Tool } from '../library/tool.js';
import { DEFAULT_BM25_PARAMS, queryTerms, type Bm25Index } from './bm25.js';
import { passageOf, tokenizeLibrary, type Progress } from './build.js';
import type { Catalog } from './catalog.js';
import { apiName } from './documents.js';
import type { Embedder } from './embedder.js';
import { describable, paraphrase, querySource, rng, type EvalQuery, type QuerySet } from './eval-queries.js';
import { LibraryVersion } from './fingerprint.js';
import { DEFAULT_DENSE_WEIGHTS, FUSION_DEPTH, fuseHybrid, reciprocalRankFusion } from './fuse.js';
import { computeMetrics, type Metrics } from './metrics.js';
import { loadOnnxEmbedder, type OnnxDtype, type Pooling } from './onnx-embedder.js';
import type { Scored } from './topk.js';
import { loadUseEmbedder } from './use-embedder.js';
import { ensureVectors } from './vector-store.js';
import { EVAL_RETRIEVERS, type EvalRetriever } from './retrievers.js';
import { VectorIndex } from './vectors.js';

export { EVAL_RETRIEVERS, type EvalRetriever };

export interface EvalOptions {
  /**
   * Default: bm25; with an embedModel also dense and hybrid-dense. USE is asked for by name: its vectors for a
   * full library take an hour or more to build on two cores.
   */
  retrievers?: EvalRetriever[];
  /** Queries per set (default 200). */
  size?: number;
  seed?: number;
  embedModel?: string;
  embedDtype?: OnnxDtype;
  pooling?: Pooling;
  queryPrefix?: string;
  denseWeight?: number;
  onProgress?: (stage: string, done: number, total: number) => void;
}

export interface RetrieverScore {
  retriever: EvalRetriever;
  overall: Metrics;
  sets: Record<QuerySet, Metrics>;
  ms_per_query: number;
}

export interface EvalReport {
  tools: number;
  seed: number;
  queries: Record<QuerySet, number>;
  results: RetrieverScore[];
}

const DEPTH = 10;

/**
 * Builds the benchmark from the library: three sets of queries, each from tools drawn with the seed.
 * - paraphrase: one tool's description (or name), reworded; the tool stays fully indexed.
 * - heldout: the same, but the tool is indexed without its description, so words must match elsewhere.
 * - multi: two operations of one API asked for in one query; both are relevant.
 */
export function makeBenchmark(
  store: LibraryStore,
  { size = 200, seed = 1 }: { size?: number; seed?: number } = {},
): { queries: EvalQuery[]; withheld: Set<string> } {
  const random = rng(seed);
  const ids = [...store.ids()];
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const titles = new Map<string, string>();
  const nameOf = (tool: Tool) => {
    if (tool.origin.format !== 'openapi') return apiName(tool, undefined);
    const id = tool.origin.api_id;
    if (!titles.has(id)) titles.set(id, store.api(id)?.title ?? id);
    return titles.get(id)!;
  };
  const queries: EvalQuery[] = [];
  const withheld = new Set<string>();
  const used = new Set<string>();
  const counts: Record<QuerySet, number> = { paraphrase: 0, heldout: 0, multi: 0 };
  for (const id of ids) {
    if (counts.paraphrase + counts.heldout + counts.multi >= 3 * size) break;
    if (used.has(id)) continue;
    const tool = store.get(id);
    if (!tool || !describable(tool)) continue;
    const set: QuerySet = counts.paraphrase < size ? 'paraphrase' : counts.heldout < size ? 'heldout' : 'multi';
    if (set !== 'multi') {
      used.add(id);
      if (set === 'heldout') withheld.add(id);
      queries.push({ set, query: paraphrase(querySource(tool), nameOf(tool), random), relevant: [id] });
      counts[set]++;
      continue;
    }
    if (tool.origin.format !== 'openapi') continue;
    const source = querySource(tool);
    const partners = store
      .apiOperations(tool.origin.api_id)
      .map((op) => op.id)
      .filter((other) => other !== id && !used.has(other));
    if (partners.length === 0) continue;
    const partner = store.get(partners[Math.floor(random() * partners.length)]!);
    if (!partner || !describable(partner) || querySource(partner) === source) continue;
    used.add(id).add(partner.id);
    const first = paraphrase(source, '', random, { mentionApi: 0 });
    const second = paraphrase(querySource(partner), '', random, { mentionApi: 0 });
    queries.push({
      set,
      query:
        `${first} and ${second.replace(/^(I need to|how can I|tool to|a way to|help me) /, '')} ` +
        `with ${nameOf(tool)}`,
      relevant: [id, partner.id],
    });
    counts.multi++;
  }
  return { queries, withheld };
}

/**
 * Runs the benchmark against each retriever; the indexes are built in memory with the held-out descriptions removed.
 */
export async function evaluate(libraryDir: string, options: EvalOptions = {}): Promise<EvalReport> {
  const seed = options.seed ?? 1;
  const retrievers = options.retrievers ?? (options.embedModel ? ['bm25', 'dense', 'hybrid-dense'] : ['bm25']);
  const progress =
    (stage: string): Progress =>
    (done, total) =>
      options.onProgress?.(stage, done, total);
  const store = LibraryStore.open(libraryDir);
  try {
    const { queries, withheld } = makeBenchmark(store, { size: options.size, seed });
    const { catalog, bm25: builder } = tokenizeLibrary(store, { withhold: withheld, onProgress: progress('bm25') });
    progress('bm25 postings')(0, 1);
    const bm25 = builder.finish(DEFAULT_BM25_PARAMS);
    progress('bm25 postings')(1, 1);
    const version = new LibraryVersion(libraryDir);

    const dense = new Map<'use' | 'dense', { embedder: Embedder; vectors: VectorIndex }>();
    const denseFor = async (kind: 'use' | 'dense') => {
      let entry = dense.get(kind);
      if (!entry) {
        progress(`${kind} model`)(0, 1);
        const embedder =
          kind === 'use'
            ? await loadUseEmbedder()
            : await loadOnnxEmbedder(options.embedModel!, {
                dtype: options.embedDtype,
                pooling: options.pooling,
                queryPrefix: options.queryPrefix,
              });
        progress(`${kind} model`)(1, 1);
        const stored = await ensureVectors(libraryDir, version, embedder, {
          onProgress: progress(`vectors-${embedder.key}`),
        });
        entry = {
          embedder,
          vectors: await withhold(stored, catalog, store, embedder, withheld, progress(`withhold ${kind}`)),
        };
        dense.set(kind, entry);
      }
      return entry;
    };

    const results: RetrieverScore[] = [];
    for (const retriever of retrievers) {
      if ((retriever === 'dense' || retriever === 'hybrid-dense') && !options.embedModel)
        throw new Error(`the ${retriever} retriever needs an embedModel`);
      const kind =
        retriever === 'bm25' ? undefined : retriever === 'dense' || retriever === 'hybrid-dense' ? 'dense' : 'use';
      const model = kind ? await denseFor(kind) : undefined;
      const fusion = retriever === 'hybrid-rrf' ? 'rrf' : retriever.startsWith('hybrid') ? 'score' : undefined;
      const started = process.hrtime.bigint();
      const rankings = await rank(
        queries,
        bm25,
        model,
        fusion,
        options.denseWeight ?? DEFAULT_DENSE_WEIGHTS[kind ?? 'dense'],
        progress(`rank ${retriever}`),
      );
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      results.push(
        score(
          retriever,
          queries,
          rankings.map((list) => list.map((s) => catalog.entry(s.doc).id)),
          ms,
        ),
      );
    }
    for (const { embedder } of dense.values()) await embedder.close();
    const counts = { paraphrase: 0, heldout: 0, multi: 0 };
    for (const q of queries) counts[q.set]++;
    return { tools: catalog.size, seed, queries: counts, results };
  } finally {
    store.close();
  }
}

async function rank(
  queries: EvalQuery[],
  bm25: Bm25Index,
  model: { embedder: Embedder; vectors: VectorIndex } | undefined,
  fusion: 'score' | 'rrf' | undefined,
  denseWeight: number,
  onProgress: Progress,
): Promise<Scored[][]> {
  const lexical = (q: EvalQuery, depth: number) => bm25.search(queryTerms(q.query), depth);
  if (!model) {
    const out = queries.map((q) => lexical(q, DEPTH));
    onProgress(queries.length, queries.length);
    return out;
  }
  const out: Scored[][] = [];
  for (let i = 0; i < queries.length; i += 64) {
    const batch = queries.slice(i, i + 64);
    const vectors = await model.embedder.embedQueries(batch.map((q) => q.query));
    const dense = await model.vectors.search(vectors, fusion ? FUSION_DEPTH : DEPTH);
    batch.forEach((q, j) => {
      if (!fusion) return out.push(dense[j]!);
      const lists = [lexical(q, FUSION_DEPTH), dense[j]!] as const;
      out.push(
        fusion === 'rrf' ? reciprocalRankFusion(lists, DEPTH) : fuseHybrid(lists[0], lists[1], DEPTH, denseWeight),
      );
    });
    onProgress(out.length, queries.length);
  }
  return out;
}

/** A copy of the stored vectors with the held-out tools re-embedded from passages without their descriptions. */
async function withhold(
  stored: VectorIndex,
  catalog: Catalog,
  store: LibraryStore,
  embedder: Embedder,
  withheld: ReadonlySet<string>,
  onProgress: Progress,
): Promise<VectorIndex> {
  const data = Float32Array.from(stored.data);
  const passage = passageOf(store);
  const ids = [...withheld];
  for (let i = 0; i < ids.length; i += 32) {
    const batch = ids.slice(i, i + 32);
    const vectors = await embedder.embedPassages(batch.map((id) => passage({ ...store.get(id)!, description: '' })));
    batch.forEach((id, j) => data.set(vectors[j]!, catalog.docOf(id)! * stored.dim));
    onProgress(i + batch.length, ids.length);
  }
  return new VectorIndex(data, stored.dim);
}

function score(retriever: EvalRetriever, queries: EvalQuery[], ranked: string[][], ms: number): RetrieverScore {
  const of = (set?: QuerySet) => {
    const idx = queries.map((q, i) => (set === undefined || q.set === set ? i : -1)).filter((i) => i >= 0);
    return computeMetrics(
      idx.map((i) => ranked[i]!),
      idx.map((i) => queries[i]!.relevant),
    );
  };
  return {
    retriever,
    overall: of(),
    sets: { paraphrase: of('paraphrase'), heldout: of('heldout'), multi: of('multi') },
    ms_per_query: Math.round((ms / Math.max(1, queries.length)) * 1000) / 1000,
  };
}
