/** Per-call wall times, summarized as the report shows them. */

export interface LatencySummary {
  calls: number;
  p50_ms: number | null;
  p95_ms: number | null;
  mean_ms: number | null;
}

/** The nearest-rank percentile of sorted values (p in (0, 100]). */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export function summarizeLatency(times: readonly number[]): LatencySummary {
  if (times.length === 0) return { calls: 0, p50_ms: null, p95_ms: null, mean_ms: null };
  const sorted = [...times].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, t) => sum + t, 0) / sorted.length;
  return {
    calls: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    mean_ms: round(mean),
  };
}
