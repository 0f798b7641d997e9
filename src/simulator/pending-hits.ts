/** Hit counts and last-hit times gathered in memory between writes, per cache entry: statistics, written in batches. */
export type PendingHits<Id> = Map<Id, { hits: number; last: number }>;

/** Adds hits to an entry's pending counts; true when the entry was not pending yet. */
export function mergeHits<Id>(pending: PendingHits<Id>, id: Id, hits: number, last: number): boolean {
  const seen = pending.get(id);
  if (!seen) {
    pending.set(id, { hits, last });
    return true;
  }
  seen.hits += hits;
  seen.last = Math.max(seen.last, last);
  return false;
}
