import { FIELDS, type Field, type FieldTexts } from './documents.js';
import { indexTerms } from './tokenize.js';
import { TopK, type Scored } from './topk.js';

export interface FieldParams {
  weight: number;
  /** Length normalization: 0 ignores field length, 1 divides by it relative to the field's average. */
  b: number;
}

export interface Bm25Params {
  /** Term-frequency saturation. */
  k1: number;
  fields: Record<Field, FieldParams>;
  /**
   * Weight of name coverage: a tool whose whole name the query says ("Get a repository" for "get a github
   * repository") gains up to this much, in proportion to the idf-weighted share of its name's terms the query
   * matches. BM25F alone rewards long names that repeat the query's words over the short name that is the answer.
   */
  coverage: number;
}

/** Chosen on the evaluation in docs/retrieval.md (50,011 tools, seeds 1 and 2). */
export const DEFAULT_BM25_PARAMS: Bm25Params = {
  k1: 0.8,
  fields: {
    name: { weight: 3, b: 0.5 },
    operation: { weight: 2, b: 0.5 },
    api: { weight: 5, b: 0.3 },
    description: { weight: 1, b: 0.75 },
    params: { weight: 0.7, b: 0.5 },
    category: { weight: 0.5, b: 0 },
  },
  coverage: 6,
};

/**
 * A BM25F index in compressed-sparse-row form. Since the field weighting and saturation depend only on
 * the term and the document, each posting stores its final impact (idf × saturated weighted tf), and a
 * query is a sum of impacts over its terms' postings.
 */
export class Bm25Index {
  private readonly termIds: Map<string, number>;
  private readonly scores: Float32Array;
  private readonly touched: Uint8Array;
  private readonly hits: Uint32Array;

  constructor(
    readonly terms: readonly string[],
    /** postings of term t are [offsets[t], offsets[t + 1]) */
    readonly offsets: Uint32Array,
    readonly docs: Uint32Array,
    readonly impacts: Float32Array,
    readonly docCount: number,
  ) {
    this.termIds = new Map(terms.map((t, i) => [t, i]));
    this.scores = new Float32Array(docCount);
    this.touched = new Uint8Array(docCount);
    this.hits = new Uint32Array(docCount);
  }

  termId(term: string): number | undefined {
    return this.termIds.get(term);
  }

  /** How many documents contain the term. */
  df(termId: number): number {
    return this.offsets[termId + 1]! - this.offsets[termId]!;
  }

  /**
   * The k best documents for weighted query terms. Reuses one score buffer: searches on one index must
   * not interleave, which holds because this function is synchronous.
   */
  search(query: ReadonlyMap<string, number>, k: number, accept?: (doc: number) => boolean): Scored[] {
    const { scores, touched, hits, offsets, docs, impacts } = this;
    let hitCount = 0;
    for (const [term, weight] of query) {
      const t = this.termIds.get(term);
      if (t === undefined) continue;
      for (let p = offsets[t]!, end = offsets[t + 1]!; p < end; p++) {
        const doc = docs[p]!;
        if (touched[doc] === 0) {
          touched[doc] = 1;
          scores[doc] = 0;
          hits[hitCount++] = doc;
        }
        scores[doc]! += weight * impacts[p]!;
      }
    }
    const top = new TopK(k);
    for (let i = 0; i < hitCount; i++) {
      const doc = hits[i]!;
      touched[doc] = 0;
      const score = scores[doc]!;
      if (score < top.threshold || (accept && !accept(doc))) continue;
      top.push(doc, score);
    }
    return top.result();
  }
}

function hasTerm(pairs: Uint32Array, term: number): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === term) return true;
  return false;
}

/** Query terms with their weights: repeated words count more. */
export function queryTerms(text: string): Map<string, number> {
  const terms = new Map<string, number>();
  for (const term of indexTerms(text)) terms.set(term, (terms.get(term) ?? 0) + 1);
  return terms;
}

/** Builds the index in two passes over the tokenized documents: field lengths first, impacts second. */
export class Bm25Builder {
  private readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Per document, per field: the flat list of (term id, count) pairs. */
  private readonly docTerms: Uint32Array[][] = [];
  private readonly lengths: number[][] = FIELDS.map(() => []);

  add(fields: FieldTexts): void {
    const perField: Uint32Array[] = [];
    FIELDS.forEach((field, f) => {
      const counts = new Map<number, number>();
      const tokens = indexTerms(fields[field]);
      for (const token of tokens) {
        let id = this.termIds.get(token);
        if (id === undefined) {
          id = this.terms.length;
          this.terms.push(token);
          this.termIds.set(token, id);
        }
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      const pairs = new Uint32Array(counts.size * 2);
      let i = 0;
      for (const [id, n] of counts) {
        pairs[i++] = id;
        pairs[i++] = n;
      }
      perField.push(pairs);
      this.lengths[f]!.push(tokens.length);
    });
    this.docTerms.push(perField);
  }

  /** The index under some parameters; may be called again with others (tuning reuses one tokenization). */
  finish(params: Bm25Params = DEFAULT_BM25_PARAMS): Bm25Index {
    const n = this.docTerms.length;
    const { k1 } = params;
    const fieldParams = FIELDS.map((f) => params.fields[f]);
    const avg = this.lengths.map((ls) => Math.max(1e-9, ls.reduce((a, b) => a + b, 0) / Math.max(1, ls.length)));

    // Weighted, length-normalized term frequency per (document, term), summed over fields.
    const postingTerm: number[] = [];
    const postingDoc: number[] = [];
    const postingTf: number[] = [];
    const postingInName: number[] = [];
    const df = new Uint32Array(this.terms.length);
    const nameField = FIELDS.indexOf('name');
    const tf = new Map<number, number>();
    for (let doc = 0; doc < n; doc++) {
      tf.clear();
      this.docTerms[doc]!.forEach((pairs, f) => {
        const { weight, b } = fieldParams[f]!;
        const norm = 1 - b + (b * this.lengths[f]![doc]!) / avg[f]!;
        for (let i = 0; i < pairs.length; i += 2)
          tf.set(pairs[i]!, (tf.get(pairs[i]!) ?? 0) + (weight * pairs[i + 1]!) / norm);
      });
      const name = this.docTerms[doc]![nameField]!;
      for (const [term, w] of tf) {
        postingTerm.push(term);
        postingDoc.push(doc);
        postingTf.push(w);
        postingInName.push(hasTerm(name, term) ? 1 : 0);
        df[term]!++;
      }
    }
    const idf = (t: number) => Math.log(1 + (n - df[t]! + 0.5) / (df[t]! + 0.5));
    const nameIdf = new Float64Array(n);
    for (let doc = 0; doc < n; doc++) {
      const name = this.docTerms[doc]![nameField]!;
      for (let i = 0; i < name.length; i += 2) nameIdf[doc]! += idf(name[i]!);
    }

    const offsets = new Uint32Array(this.terms.length + 1);
    for (let t = 0; t < this.terms.length; t++) offsets[t + 1] = offsets[t]! + df[t]!;
    const fill = offsets.slice(0, this.terms.length);
    const docs = new Uint32Array(postingDoc.length);
    const impacts = new Float32Array(postingDoc.length);
    for (let p = 0; p < postingDoc.length; p++) {
      const t = postingTerm[p]!;
      const doc = postingDoc[p]!;
      const w = postingTf[p]!;
      const at = fill[t]!++;
      docs[at] = doc;
      const covered = postingInName[p]! === 1 ? (params.coverage * idf(t)) / nameIdf[doc]! : 0;
      impacts[at] = (idf(t) * w * (k1 + 1)) / (k1 + w) + covered;
    }
    return new Bm25Index(this.terms, offsets, docs, impacts, n);
  }
}
