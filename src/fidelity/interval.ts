/** A proportion with its 95% Wilson interval and its sample size; the bounds are null when nothing was counted. */
export interface Proportion {
  n: number;
  hits: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

const Z = 1.959964;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Wilson's interval: sound near 0 and 1 and for small n, where the normal approximation is not. */
export function proportion(hits: number, n: number): Proportion {
  if (n === 0) return { n, hits, rate: null, low: null, high: null };
  const p = hits / n;
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return {
    n,
    hits,
    rate: round4(p),
    low: round4(Math.max(0, centre - half)),
    high: round4(Math.min(1, centre + half)),
  };
}
