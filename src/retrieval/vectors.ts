import { TopK, type Scored } from './topk.js';

/** Unit-length rows of `dim` floats, one per catalog document; cosine similarity is a dot product. */
export class VectorIndex {
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

  /** Exact search: one dot product per row, which for 50k × 1024 floats is a few tens of milliseconds. */
  search(query: Float32Array, k: number, accept?: (doc: number) => boolean): Scored[] {
    const { data, dim } = this;
    if (query.length !== dim) throw new Error(`query vector has ${query.length} dimensions, the index ${dim}`);
    const top = new TopK(k);
    for (let doc = 0, base = 0; base < data.length; doc++, base += dim) {
      if (accept && !accept(doc)) continue;
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += data[base + i]! * query[i]!;
      if (dot > top.threshold) top.push(doc, dot);
    }
    return top.result();
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
