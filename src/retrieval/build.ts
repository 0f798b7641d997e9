import type { LibraryStore } from '../library/store.js';
import type { Tool } from '../library/tool.js';
import { Bm25Builder, DEFAULT_BM25_PARAMS, type Bm25Index, type Bm25Params } from './bm25.js';
import { CatalogBuilder, type Catalog } from './catalog.js';
import { toolFields, toolPassage } from './documents.js';
import { PASSAGE_BATCH, type Embedder } from './embedder.js';
import { VectorIndex } from './vectors.js';

export type Progress = (done: number, total: number) => void;
/** Progress of a job of several stages: a stage name, and how far it is. */
export type StageProgress = (stage: string, done: number, total: number) => void;

/**
 * Every tool in library order. By id rather than through store.iterate(): an open iterator keeps the
 * SQLite connection busy, and API titles are looked up along the way.
 */
function* tools(store: LibraryStore): Generator<Tool> {
  for (const id of store.ids()) {
    const tool = store.get(id);
    if (tool) yield tool;
  }
}

/** API titles by api_id, read once each. */
function apiTitles(store: LibraryStore): (tool: Tool) => string | undefined {
  const titles = new Map<string, string | undefined>();
  return (tool) => {
    if (tool.origin.format !== 'openapi') return undefined;
    const id = tool.origin.api_id;
    if (!titles.has(id)) titles.set(id, store.api(id)?.title);
    return titles.get(id);
  };
}

export interface TokenizeOptions {
  onProgress?: Progress;
  /** Tools indexed without their description (the benchmark's held-out queries are written from it). */
  withhold?: ReadonlySet<string>;
}

/** One pass over the library: the catalog, and every tool's fields tokenized, ready for BM25 parameters. */
export function tokenizeLibrary(
  store: LibraryStore,
  { onProgress, withhold }: TokenizeOptions = {},
): { catalog: Catalog; bm25: Bm25Builder } {
  const total = store.ids().length;
  const title = apiTitles(store);
  const catalog = new CatalogBuilder();
  const bm25 = new Bm25Builder();
  let done = 0;
  for (const tool of tools(store)) {
    catalog.add(tool);
    const fields = toolFields(tool, title(tool));
    bm25.add(withhold?.has(tool.id) ? { ...fields, description: '' } : fields);
    if (++done % 1000 === 0) onProgress?.(done, total);
  }
  onProgress?.(done, total);
  return { catalog: catalog.finish(), bm25 };
}

/** The catalog and the BM25 index, from one pass over the library (stage bm25), then the postings (bm25 postings). */
export function buildLexical(
  store: LibraryStore,
  params: Bm25Params = DEFAULT_BM25_PARAMS,
  onProgress?: StageProgress,
): { catalog: Catalog; bm25: Bm25Index } {
  const { catalog, bm25 } = tokenizeLibrary(store, { onProgress: (done, total) => onProgress?.('bm25', done, total) });
  onProgress?.('bm25 postings', 0, 1);
  const index = bm25.finish(params);
  onProgress?.('bm25 postings', 1, 1);
  return { catalog, bm25: index };
}

/** The passage a sentence encoder sees for a tool. */
export function passageOf(store: LibraryStore): (tool: Tool) => string {
  const title = apiTitles(store);
  return (tool) => toolPassage(tool, title(tool));
}

/**
 * One vector per tool passage, in library order, embedded in batches of similar length (embedByLength): batches in
 * library order would pad the median passage to about 2.5 times its tokens.
 */
export async function buildVectors(
  store: LibraryStore,
  embedder: Embedder,
  onProgress?: Progress,
  batchSize = PASSAGE_BATCH,
): Promise<VectorIndex> {
  const passage = passageOf(store);
  const passages = Array.from(tools(store), passage);
  return new VectorIndex(await embedByLength(passages, embedder, onProgress, batchSize), embedder.dim);
}

/**
 * The passages' vectors, one row each in the order given, embedded in batches of similar length (a batch is padded
 * to its longest passage). The batches are taken in a stride order that mixes long and short ones through the run,
 * so that the share of passages done tracks the share of the time: taken longest first, the progress bar's
 * estimate of the time left was three to five times the truth through the full library's first minutes.
 */
export async function embedByLength(
  passages: readonly string[],
  embedder: Embedder,
  onProgress?: Progress,
  batchSize = PASSAGE_BATCH,
): Promise<Float32Array> {
  const order = passages.map((_, i) => i).sort((a, b) => passages[b]!.length - passages[a]!.length);
  const data = new Float32Array(passages.length * embedder.dim);
  const batches = Math.ceil(order.length / batchSize);
  const stride = spreadStride(batches);
  let done = 0;
  onProgress?.(0, passages.length);
  for (let j = 0; j < batches; j++) {
    const start = ((j * stride) % batches) * batchSize;
    const rows = order.slice(start, start + batchSize);
    const vectors = await embedder.embedPassages(rows.map((row) => passages[row]!));
    vectors.forEach((v, i) => data.set(v, rows[i]! * embedder.dim));
    done += rows.length;
    onProgress?.(done, passages.length);
  }
  return data;
}

/** A step near the golden section of n and coprime with it: j * step mod n visits each of n batches once, spread. */
function spreadStride(n: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let step = Math.max(1, Math.round(n * 0.618));
  while (gcd(step, n) !== 1) step++;
  return step;
}
