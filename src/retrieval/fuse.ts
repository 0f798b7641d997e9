import type { Scored } from './topk.js';

/**
 * Reciprocal rank fusion (Cormack et al., 2009): each list gives a document weight / (c + rank). Ranks
 * rather than scores, so BM25's unbounded scores and cosine similarities need no calibration.
 */
export function reciprocalRankFusion(
  lists: readonly Scored[][],
  k: number,
  { c = 60, weights }: { c?: number; weights?: readonly number[] } = {},
): Scored[] {
  const fused = new Map<number, number>();
  lists.forEach((list, i) => {
    const weight = weights?.[i] ?? 1;
    list.forEach(({ doc }, rank) => fused.set(doc, (fused.get(doc) ?? 0) + weight / (c + rank + 1)));
  });
  return best(fused, k);
}

/**
 * Convex combination of min-max normalized scores: keeps how much better the first hit is than the
 * next, which rank fusion throws away.
 */
export function normalizedScoreFusion(lists: readonly Scored[][], k: number, weights?: readonly number[]): Scored[] {
  const fused = new Map<number, number>();
  lists.forEach((list, i) => {
    if (list.length === 0) return;
    const weight = weights?.[i] ?? 1;
    const max = list[0]!.score;
    const min = list[list.length - 1]!.score;
    const span = max - min || 1;
    for (const { doc, score } of list) fused.set(doc, (fused.get(doc) ?? 0) + (weight * (score - min)) / span);
  });
  return best(fused, k);
}

function best(fused: Map<number, number>, k: number): Scored[] {
  return [...fused]
    .map(([doc, score]) => ({ doc, score }))
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, k);
}

/**
 * How much the dense list counts against BM25 in hybrid search, per encoder. Chosen on the evaluation
 * (docs/retrieval.md): the shipped USE model is the weaker signal and helps as a tie-breaker (0.2); a local ONNX
 * encoder such as all-MiniLM-L6-v2 is as strong as BM25 and fuses best as an equal (1).
 */
export const DEFAULT_DENSE_WEIGHTS: Readonly<Record<'use' | 'dense', number>> = { use: 0.2, dense: 1 };

/** How deep each list goes before fusion: deep enough that a document one list ranks low still meets the other's. */
export const FUSION_DEPTH = 100;

/** The hybrid retriever's fusion: normalized scores, BM25 at weight 1 and the dense list at `denseWeight`. */
export function fuseHybrid(lexical: Scored[], dense: Scored[], k: number, denseWeight: number): Scored[] {
  return normalizedScoreFusion([lexical, dense], k, [1, denseWeight]);
}
