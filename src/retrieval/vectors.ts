import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { MATMUL_INPUTS, MATMUL_OUTPUT, matmulModel } from './matmul-model.js';
import { TopK, type Scored } from './topk.js';

interface Scorer {
  session: InferenceSession;
  vectors: Tensor;
  Tensor: typeof Tensor;
}

/** Unit-length rows of `dim` floats, one per catalog document; cosine similarity is a dot product. */
export class VectorIndex {
  private scorer?: Promise<Scorer>;

  constructor(
    readonly data: Float32Array,
    readonly dim: number,
  ) {
    if (data.length % dim !== 0)
      throw new Error(`vector data of ${data.length} floats is not a whole number of ${dim}-dimensional rows`);
  }

  get count(): number {
    return this.data.length / this.dim;
  }

  /**
   * Exact search, the k best rows for each query: every dot product of the batch in one onnxruntime MatMul, which
   * reads the rows once per batch (50k × 384 floats: ~8 ms of CPU for one query, 25–28 ms for a JavaScript loop
   * over them; docs/retrieval.md, Speed and size).
   */
  async search(queries: readonly Float32Array[], k: number, accept?: (doc: number) => boolean): Promise<Scored[][]> {
    const { dim, count } = this;
    for (const query of queries)
      if (query.length !== dim) throw new Error(`query vector has ${query.length} dimensions, the index ${dim}`);
    if (queries.length === 0) return [];
    const b = queries.length;
    const columns = new Float32Array(dim * b);
    queries.forEach((query, j) => {
      for (let i = 0; i < dim; i++) columns[i * b + j] = query[i]!;
    });
    const { session, vectors, Tensor } = await this.loadScorer();
    const output = await session.run({
      [MATMUL_INPUTS.vectors]: vectors,
      [MATMUL_INPUTS.queries]: new Tensor('float32', columns, [dim, b]),
    });
    const scores = output[MATMUL_OUTPUT]!.data as Float32Array;
    return queries.map((_, j) => {
      const top = new TopK(k);
      let threshold = -Infinity;
      for (let doc = 0, at = j; doc < count; doc++, at += b) {
        const score = scores[at]!;
        if (score < threshold || (accept && !accept(doc))) continue;
        top.push(doc, score);
        threshold = top.threshold;
      }
      return top.result();
    });
  }

  private loadScorer(): Promise<Scorer> {
    if (this.scorer) return this.scorer;
    const scorer = (async () => {
      const { InferenceSession, Tensor } = await import('onnxruntime-node');
      // One thread: the scan is bound by memory bandwidth, and a server's other cores serve other requests.
      const session = await InferenceSession.create(matmulModel(this.dim), {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
      });
      return { session, vectors: new Tensor('float32', this.data, [this.count, this.dim]), Tensor };
    })();
    // A failed start is not kept: the next search tries again.
    scorer.catch(() => {
      if (this.scorer === scorer) this.scorer = undefined;
    });
    this.scorer = scorer;
    return scorer;
  }
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
