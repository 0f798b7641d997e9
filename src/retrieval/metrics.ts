/** Ranking quality of one retriever over a set of queries (binary relevance). */
export interface Metrics {
  queries: number;
  recall_1: number;
  recall_3: number;
  recall_10: number;
  ndcg_3: number;
  ndcg_10: number;
  mrr_10: number;
}

const gain = (rank: number) => 1 / Math.log2(rank + 2);

function ndcg(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += gain(i);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += gain(i);
  return ideal === 0 ? 0 : dcg / ideal;
}

function recall(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  return relevant.size === 0 ? 0 : ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
}

/** Mean metrics over queries; `ranked[i]` is the retriever's ranking for the query whose answers are `relevant[i]`. */
export function computeMetrics(
  ranked: readonly (readonly string[])[],
  relevant: readonly (readonly string[])[],
): Metrics {
  const n = ranked.length;
  const sum = { recall_1: 0, recall_3: 0, recall_10: 0, ndcg_3: 0, ndcg_10: 0, mrr_10: 0 };
  ranked.forEach((list, i) => {
    const rel = new Set(relevant[i]);
    sum.recall_1 += recall(list, rel, 1);
    sum.recall_3 += recall(list, rel, 3);
    sum.recall_10 += recall(list, rel, 10);
    sum.ndcg_3 += ndcg(list, rel, 3);
    sum.ndcg_10 += ndcg(list, rel, 10);
    const first = list.slice(0, 10).findIndex((id) => rel.has(id));
    sum.mrr_10 += first < 0 ? 0 : 1 / (first + 1);
  });
  const mean = (v: number) => (n === 0 ? 0 : Math.round((v / n) * 1e4) / 1e4);
  return {
    queries: n,
    recall_1: mean(sum.recall_1),
    recall_3: mean(sum.recall_3),
    recall_10: mean(sum.recall_10),
    ndcg_3: mean(sum.ndcg_3),
    ndcg_10: mean(sum.ndcg_10),
    mrr_10: mean(sum.mrr_10),
  };
}
