/**
 * Which operations make the default library: exactly N, spread across providers, best first inside each.
 * Pure functions over cheap per-operation features, so the build converts only what it keeps.
 */
import { shortHash } from '../ids.js';

export interface Candidate {
  /** Stable identity: `api_id method path`. */
  key: string;
  provider: string;
  api: string;
  /** 0 first: described, 1: no summary or description, 2: repeats an operation of another API of the same provider. */
  tier: number;
  /** Higher first inside a tier. */
  quality: number;
}

export const SELECTION_RULE =
  'Operations are taken in tiers: first those with a summary or description that no earlier API of the same ' +
  'provider already has ' +
  '(same method, path and operationId), then undescribed ones, then such repeats. Inside a tier, a ' +
  'per-provider cap is water-filled ' +
  '(the largest cap c with sum(min(n_p, c)) <= N, one more for the remaining providers in stable-hash order) ' +
  'so the total is exactly N ' +
  "and no provider dominates; each provider fills its share round-robin across its APIs, taking each API's " +
  'operations with a ' +
  'response schema, then examples, then not deprecated first, ties broken by a stable hash of api_id, method and path.';

/** Quality inside a tier: a JSON response schema outranks examples, which outrank not being deprecated. */
export function quality(features: { responseSchema: boolean; examples: boolean; deprecated: boolean }): number {
  return (features.responseSchema ? 4 : 0) + (features.examples ? 2 : 0) + (features.deprecated ? 0 : 1);
}

/**
 * Per-group quotas summing to exactly min(n, total): the largest common cap c with sum(min(count, c)) <= n,
 * and one more for as many of the groups still above c as the remainder needs, in stable-hash order of their names.
 */
export function waterFill(counts: Map<string, number>, n: number): Map<string, number> {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (n >= total) return new Map(counts);
  const filled = (cap: number) => [...counts.values()].reduce((sum, count) => sum + Math.min(count, cap), 0);
  let low = 0;
  let high = Math.max(0, ...counts.values());
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (filled(mid) <= n) low = mid;
    else high = mid - 1;
  }
  let remainder = n - filled(low);
  const quotas = new Map<string, number>();
  for (const [name, count] of counts) quotas.set(name, Math.min(count, low));
  const above = [...counts].filter(([, count]) => count > low).map(([name]) => name);
  for (const name of above.sort((a, b) => compare(shortHash(a), shortHash(b)) || compare(a, b))) {
    if (remainder === 0) break;
    quotas.set(name, low + 1);
    remainder--;
  }
  return quotas;
}

/** Exactly min(size, candidates.length) candidates, chosen by SELECTION_RULE; deterministic for the same input. */
export function selectCandidates<T extends Candidate>(candidates: readonly T[], size: number): T[] {
  const hashes = new Map(candidates.map((c) => [c, shortHash(c.key, 12)]));
  const selected: T[] = [];
  const tiers = [...new Set(candidates.map((c) => c.tier))].sort((a, b) => a - b);
  for (const tier of tiers) {
    const need = size - selected.length;
    if (need <= 0) break;
    const byProvider = groupBy(
      candidates.filter((c) => c.tier === tier),
      (c) => c.provider,
    );
    const quotas = waterFill(new Map([...byProvider].map(([provider, list]) => [provider, list.length])), need);
    for (const [provider, list] of byProvider) {
      selected.push(...roundRobin(list, hashes).slice(0, quotas.get(provider) ?? 0));
    }
  }
  return selected;
}

/** A provider's candidates in the order it fills its quota: round r takes every API's r-th best operation. */
function roundRobin<T extends Candidate>(list: T[], hashes: Map<T, string>): T[] {
  const best = (a: T, b: T) =>
    b.quality - a.quality || compare(hashes.get(a)!, hashes.get(b)!) || compare(a.key, b.key);
  const rank = new Map<T, number>();
  for (const apiList of groupBy(list, (c) => c.api).values()) apiList.sort(best).forEach((c, i) => rank.set(c, i));
  return [...list].sort((a, b) => rank.get(a)! - rank.get(b)! || best(a, b));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = key(item);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return groups;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
