import { statSync } from 'node:fs';
import { schemaNumber } from '../wire/schemas.js';
import { LibraryStore } from '../library/store.js';
import type { Origin } from '../library/tool.js';
import { DEFAULT_BM25_PARAMS, queryTerms, type Bm25Index } from './bm25.js';
import { buildLexical } from './build.js';
import type { Catalog } from './catalog.js';
import type { Embedder } from './embedder.js';
import { LibraryVersion } from './fingerprint.js';
import { DEFAULT_DENSE_WEIGHTS, FUSION_DEPTH, fuseHybrid } from './fuse.js';
import { IndexFileError } from './index-file.js';
import { bm25File, catalogFile, vectorFile } from './index-paths.js';
import { loadOnnxEmbedder, type OnnxDtype, type Pooling } from './onnx-embedder.js';
import { RETRIEVERS, type RetrieverName } from './retrievers.js';
import { bm25Signature, isCurrent, loadBm25, loadCatalog, saveBm25, saveCatalog } from './persist.js';
import type { Scored } from './topk.js';
import { loadUseEmbedder } from './use-embedder.js';
import type { VectorIndex } from './vectors.js';
import { ensureVectors, vectorsCurrent } from './vector-store.js';

export { RETRIEVERS, type RetrieverName };

export interface SearchOptions {
  /** Results per query (default 3, as in the paper). */
  k?: number;
  /** Default: the instance's defaultRetriever() (hybrid with a built --embed-model index, else bm25). */
  retriever?: RetrieverName;
  /** Only tools of this category. */
  category?: string;
}

export interface SearchResult {
  id: string;
  name: string;
  score: number;
  category: string;
  origin: Origin;
}

export interface ToolSearchOptions {
  /** Local ONNX model directory for the `dense` retriever, and for `hybrid` in place of the shipped USE model. */
  embedModel?: string;
  /** Which weights of the embedModel directory (default: q8 where onnx/model_quantized.onnx exists, else fp32). */
  embedDtype?: OnnxDtype;
  pooling?: Pooling;
  queryPrefix?: string;
  /** Weight of the dense list against BM25's in hybrid search (default 0.2 with USE, 1 with an --embed-model). */
  denseWeight?: number;
  /** Build a missing or stale index on first use (default true). With false, using one is an error. */
  autoBuild?: boolean;
  onProgress?: (stage: string, done: number, total: number) => void;
}

export interface IndexReport {
  retriever: 'bm25' | 'use' | 'dense';
  file: string;
  built: boolean;
  tools: number;
  seconds: number;
  /** CPU time of the whole process while building (every thread), which the machine's other load moves less. */
  cpu_seconds: number;
  bytes: number;
  /** Growth of the process's resident memory while building. */
  rss_mb: number;
}

/** A bad search request: the message names what was wrong; 404 where it names what the library lacks (a category). */
export class SearchError extends Error {
  constructor(
    message: string,
    /** 404: a category the library lacks; 409: a retriever this server cannot run as configured or built. */
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

/** An index a search needs is missing or stale and `autoBuild` is off: the message names the command that builds it. */
export class IndexMissingError extends SearchError {
  constructor(
    readonly retriever: string,
    /** The command line that builds it, with the model directory when the retriever needs one. */
    readonly command: string,
  ) {
    super(`the ${retriever} index is missing or stale; build it with \`${command}\``);
  }
}

/** The largest k a search takes, as `POST /v1/search` states it. */
export const MAX_K = schemaNumber('server', '/$defs/SearchRequest/properties/k/maximum');

interface Lexical {
  catalog: Catalog;
  bm25: Bm25Index;
}

/**
 * Tool search over one library. Indexes are loaded (or built) on first use and kept; one instance serves
 * any number of searches. Heavy models load only for the retrievers that need them.
 */
export class ToolSearch {
  private versionValue: LibraryVersion | undefined;
  private defaultValue: Promise<RetrieverName> | undefined;
  private lexical: Lexical | undefined;
  private readonly embedders = new Map<'use' | 'dense', Promise<Embedder>>();
  private readonly vectorIndexes = new Map<'use' | 'dense', Promise<VectorIndex>>();

  private constructor(
    readonly libraryDir: string,
    private readonly options: ToolSearchOptions,
  ) {}

  /** Checks that the library exists; loads nothing yet. */
  static open(libraryDir: string, options: ToolSearchOptions = {}): ToolSearch {
    LibraryStore.open(libraryDir).close();
    return new ToolSearch(libraryDir, options);
  }

  /** The default retriever, synchronously: BM25 only. */
  searchBm25(queries: readonly string[], options: Omit<SearchOptions, 'retriever'> = {}): SearchResult[][] {
    const { k, accept } = this.request(queries, options);
    const { bm25, catalog } = this.lexicalIndex();
    return queries.map((q) => this.results(bm25.search(queryTerms(q), k, accept), catalog));
  }

  /** Top-k tools for each query, in query order. */
  async search(queries: readonly string[], options: SearchOptions = {}): Promise<SearchResult[][]> {
    const retriever = options.retriever ?? (await this.defaultRetriever());
    if (!RETRIEVERS.includes(retriever))
      throw new SearchError(`unknown retriever ${JSON.stringify(retriever)}; use one of ${RETRIEVERS.join(', ')}`);
    if (retriever === 'bm25') return this.searchBm25(queries, options);
    const { k, accept } = this.request(queries, options);
    const { catalog, bm25 } = this.lexicalIndex();
    const { embedder, vectors } = await this.denseIndex(retriever === 'hybrid' ? this.hybridPartner() : retriever);
    const queryVectors = await embedder.embedQueries([...queries]);
    if (retriever !== 'hybrid')
      return (await vectors.search(queryVectors, k, accept)).map((r) => this.results(r, catalog));
    const depth = Math.max(FUSION_DEPTH, k);
    const dense = await vectors.search(queryVectors, depth, accept);
    const weight = this.options.denseWeight ?? DEFAULT_DENSE_WEIGHTS[this.hybridPartner()];
    return queries.map((q, i) =>
      this.results(fuseHybrid(bm25.search(queryTerms(q), depth, accept), dense[i]!, k, weight), catalog),
    );
  }

  /** Loads, or builds when missing or stale, the index a retriever needs: for servers, before the first request. */
  async prepare(retriever: RetrieverName = 'bm25'): Promise<void> {
    this.lexicalIndex();
    if (retriever !== 'bm25') await this.denseIndex(retriever === 'hybrid' ? this.hybridPartner() : retriever);
  }

  /** Builds the index files of one retriever (both of hybrid's), or only loads them when current and not forced. */
  async index(retriever: RetrieverName, { force = false } = {}): Promise<IndexReport[]> {
    const reports = [this.indexLexical(force)];
    if (retriever !== 'bm25')
      reports.push(await this.indexVectors(retriever === 'hybrid' ? this.hybridPartner() : retriever, force));
    return reports;
  }

  private indexLexical(force: boolean): IndexReport {
    const started = mark();
    const build = force || !this.lexicalCurrent();
    if (build) this.lexical = this.buildLexical();
    return report('bm25', bm25File(this.libraryDir), build, this.lexicalIndex().catalog.size, started);
  }

  private async indexVectors(kind: 'use' | 'dense', force: boolean): Promise<IndexReport> {
    const embedder = await this.embedder(kind);
    const file = vectorFile(this.libraryDir, embedder.key);
    const started = mark();
    const build = force || !vectorsCurrent(this.libraryDir, this.version(), embedder);
    if (build) this.vectorIndexes.set(kind, this.buildVectors(embedder, true));
    const vectors = await this.vectorIndex(kind, embedder);
    return report(kind, file, build, vectors.count, started);
  }

  async close(): Promise<void> {
    const loaded = [...this.embedders.values()];
    this.embedders.clear();
    this.vectorIndexes.clear();
    for (const entry of await Promise.allSettled(loaded)) if (entry.status === 'fulfilled') await entry.value.close();
  }

  /**
   * The retriever of a search that names none (`POST /v1/search` without one, episodes' search_tool): hybrid when
   * an embedModel is set and its vectors of this library are current, since it measures best on held-out
   * benchmarks (docs/retrieval.md); bm25 otherwise, as without the encoder. Decided on first use, once: vectors
   * built later are used from the next start.
   */
  defaultRetriever(): Promise<RetrieverName> {
    this.defaultValue ??= (async () => {
      if (!this.options.embedModel) return 'bm25';
      return vectorsCurrent(this.libraryDir, this.version(), await this.embedder('dense')) ? 'hybrid' : 'bm25';
    })();
    return this.defaultValue;
  }

  /** The vector file that dense and hybrid searches read: the embedModel's, else the USE model's. */
  async vectorFile(): Promise<string> {
    return vectorFile(this.libraryDir, (await this.embedder(this.hybridPartner())).key);
  }

  private hybridPartner(): 'use' | 'dense' {
    return this.options.embedModel ? 'dense' : 'use';
  }

  private version(): LibraryVersion {
    this.versionValue ??= new LibraryVersion(this.libraryDir);
    return this.versionValue;
  }

  private request(
    queries: readonly string[],
    options: Omit<SearchOptions, 'retriever'>,
  ): { k: number; accept?: (doc: number) => boolean } {
    if (!Array.isArray(queries)) throw new SearchError('queries must be an array of strings');
    queries.forEach((q, i) => {
      if (typeof q !== 'string')
        throw new SearchError(`query ${i} must be a string, got ${q === null ? 'null' : typeof q}`);
    });
    const k = options.k ?? 3;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K)
      throw new SearchError(`k must be an integer between 1 and ${MAX_K}, got ${JSON.stringify(k)}`);
    if (options.category === undefined) return { k };
    const { catalog } = this.lexicalIndex();
    const id = catalog.categoryId(options.category);
    if (id === undefined) {
      const known = [...catalog.categories].sort();
      throw new SearchError(
        `unknown category ${JSON.stringify(options.category)}; the library has ${known.length}: ` +
          `${known.slice(0, 40).join(', ')}${known.length > 40 ? ', …' : ''}`,
        404,
      );
    }
    const categoryOf = catalog.categoryOf;
    return { k, accept: (doc) => categoryOf[doc] === id };
  }

  private results(hits: Scored[], catalog: Catalog): SearchResult[] {
    return hits.map(({ doc, score }) => {
      const entry = catalog.entry(doc);
      return {
        id: entry.id,
        name: entry.name,
        score: Math.round(score * 1e6) / 1e6,
        category: entry.category,
        origin: entry.origin,
      };
    });
  }

  private lexicalCurrent(): boolean {
    const version = this.version();
    return (
      isCurrent(catalogFile(this.libraryDir), version) &&
      isCurrent(bm25File(this.libraryDir), version, bm25Signature(DEFAULT_BM25_PARAMS))
    );
  }

  private lexicalIndex(): Lexical {
    if (this.lexical) return this.lexical;
    this.options.onProgress?.('bm25 load', 0, 2);
    if (this.lexicalCurrent()) {
      try {
        const catalog = loadCatalog(this.libraryDir);
        this.options.onProgress?.('bm25 load', 1, 2);
        this.lexical = { catalog, bm25: loadBm25(this.libraryDir) };
        this.options.onProgress?.('bm25 load', 2, 2);
        return this.lexical;
      } catch (error) {
        // A header that reads as current over a body that does not: rebuild like any stale file.
        if (!(error instanceof IndexFileError)) throw error;
      }
    }
    this.requireAutoBuild('bm25');
    this.lexical = this.buildLexical();
    return this.lexical;
  }

  private buildLexical(): Lexical {
    const store = LibraryStore.open(this.libraryDir);
    try {
      const progress = this.options.onProgress;
      const built = buildLexical(store, DEFAULT_BM25_PARAMS, progress);
      progress?.('bm25 write', 0, 2);
      saveCatalog(this.libraryDir, this.version(), built.catalog);
      progress?.('bm25 write', 1, 2);
      saveBm25(this.libraryDir, this.version(), built.bm25, DEFAULT_BM25_PARAMS);
      progress?.('bm25 write', 2, 2);
      return built;
    } finally {
      store.close();
    }
  }

  private embedder(kind: 'use' | 'dense'): Promise<Embedder> {
    let embedder = this.embedders.get(kind);
    if (!embedder) {
      if (kind === 'dense' && !this.options.embedModel) {
        throw new SearchError(
          'the dense retriever needs a local ONNX model directory (--embed-model DIR); ' +
            '`use` runs the shipped Universal Sentence Encoder',
          409,
        );
      }
      const stage = `${kind} model`;
      this.options.onProgress?.(stage, 0, 1);
      embedder = (
        kind === 'use'
          ? loadUseEmbedder()
          : loadOnnxEmbedder(this.options.embedModel!, {
              dtype: this.options.embedDtype,
              pooling: this.options.pooling,
              queryPrefix: this.options.queryPrefix,
            })
      ).then((loaded) => {
        this.options.onProgress?.(stage, 1, 1);
        return loaded;
      });
      this.embedders.set(kind, embedder);
      embedder.catch(() => this.embedders.delete(kind));
    }
    return embedder;
  }

  private vectorIndex(kind: 'use' | 'dense', embedder: Embedder): Promise<VectorIndex> {
    let vectors = this.vectorIndexes.get(kind);
    if (!vectors) {
      if (!vectorsCurrent(this.libraryDir, this.version(), embedder)) this.requireAutoBuild(kind);
      vectors = this.buildVectors(embedder, false);
      this.vectorIndexes.set(kind, vectors);
      vectors.catch(() => this.vectorIndexes.delete(kind));
    }
    return vectors;
  }

  private async denseIndex(kind: 'use' | 'dense'): Promise<{ embedder: Embedder; vectors: VectorIndex }> {
    const embedder = await this.embedder(kind);
    const vectors = await this.vectorIndex(kind, embedder);
    const { catalog } = this.lexicalIndex();
    if (vectors.count !== catalog.size) {
      throw new SearchError(
        `the ${kind} vectors hold ${vectors.count} tools, the library ${catalog.size}; rebuild them with \`toolenv ` +
          `search index --retriever ${kind} --force\``,
        409,
      );
    }
    return { embedder, vectors };
  }

  private buildVectors(embedder: Embedder, force: boolean): Promise<VectorIndex> {
    return ensureVectors(this.libraryDir, this.version(), embedder, {
      force,
      onProgress: (done, total) => this.options.onProgress?.(`vectors-${embedder.key}`, done, total),
    });
  }

  private requireAutoBuild(retriever: string): void {
    if (this.options.autoBuild === false) {
      const { embedModel, embedDtype } = this.options;
      const model =
        embedModel && retriever === 'dense'
          ? ` --embed-model ${embedModel}${embedDtype ? ` --embed-dtype ${embedDtype}` : ''}`
          : '';
      throw new IndexMissingError(
        retriever,
        `toolenv search index --library ${this.libraryDir} --retriever ${retriever}${model}`,
      );
    }
  }
}

/** Where a build started: wall clock, CPU time and resident memory. */
function mark() {
  return { wall: process.hrtime.bigint(), cpu: process.cpuUsage(), rss: process.memoryUsage().rss };
}

function report(
  retriever: IndexReport['retriever'],
  file: string,
  built: boolean,
  tools: number,
  started: ReturnType<typeof mark>,
): IndexReport {
  const cpu = process.cpuUsage(started.cpu);
  return {
    retriever,
    file,
    built,
    tools,
    seconds: Math.round(Number(process.hrtime.bigint() - started.wall) / 1e6) / 1e3,
    cpu_seconds: Math.round((cpu.user + cpu.system) / 1e3) / 1e3,
    bytes: statSync(file).size,
    rss_mb: Math.round((process.memoryUsage().rss - started.rss) / 1e5) / 10,
  };
}
