/** Edges of the tool dependency graph G_dep: `src → dst` when dst needs a value or state that src produces. */

/** hard: dst requires what src returns or creates. soft: an ordering or conditional relation dst can run without. */
export type EdgeKind = 'hard' | 'soft';

export type Rule =
  /** An OpenAPI `links` entry: the document says which response value feeds which parameter. */
  | 'links'
  /** A response field of src matches a required parameter of dst (same API). */
  | 'dataflow'
  /** The same, between two APIs of one provider. */
  | 'provider-dataflow'
  /** src creates the resource dst reads, changes or deletes (POST /pets → GET /pets/{petId}). */
  | 'creates'
  /** A response field of src matches an optional parameter of dst. */
  | 'optional-input'
  /** src passes on a reference to a third resource that dst also takes as a reference. */
  | 'shared-reference'
  /** src lists the collection whose member dst fetches. */
  | 'list-get'
  /** src changes the resource dst reads. */
  | 'write-read';

export interface Edge {
  src: string;
  dst: string;
  kind: EdgeKind;
  rule: Rule;
  /** Confidence in [0, 1]: the rule's prior, or the judges' aggregated vote. */
  score: number;
  /** Why, in words a person can check: `response data[].id (pet) → path petId`. */
  evidence: string;
}

/** Edges below this score are candidates only; the paper admits judged edges at 0.7. */
export const ADMISSION_THRESHOLD = 0.7;

const RULE_PRIORITY: Record<Rule, number> = {
  links: 0,
  creates: 1,
  dataflow: 2,
  'provider-dataflow': 3,
  'list-get': 4,
  'optional-input': 5,
  'shared-reference': 6,
  'write-read': 7,
};

/** A stronger edge wins: hard over soft, then the higher score, then the more direct rule. */
function stronger(a: Edge, b: Edge): boolean {
  if (a.kind !== b.kind) return a.kind === 'hard';
  if (a.score !== b.score) return a.score > b.score;
  return RULE_PRIORITY[a.rule] < RULE_PRIORITY[b.rule];
}

const MAX_EVIDENCE = 3;

/** One edge per ordered pair: the strongest candidate, carrying the evidence of up to three rules that fired. */
export function mergeCandidates(candidates: Iterable<Edge>): Edge[] {
  const byPair = new Map<string, { best: Edge; evidence: string[] }>();
  for (const edge of candidates) {
    if (edge.src === edge.dst) continue;
    const pair = `${edge.src}\u0000${edge.dst}`;
    const entry = byPair.get(pair);
    if (!entry) {
      byPair.set(pair, { best: edge, evidence: [edge.evidence] });
      continue;
    }
    if (stronger(edge, entry.best)) {
      entry.best = edge;
      entry.evidence.unshift(edge.evidence);
      entry.evidence.length = Math.min(entry.evidence.length, MAX_EVIDENCE * 4);
    } else if (entry.evidence.length < MAX_EVIDENCE * 4) {
      entry.evidence.push(edge.evidence);
    }
  }
  const out: Edge[] = [];
  for (const { best, evidence } of byPair.values()) {
    out.push({ ...best, evidence: [...new Set(evidence)].slice(0, MAX_EVIDENCE).join('; ') });
  }
  return out;
}
