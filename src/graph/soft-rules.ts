/** Rules whose edges order two calls without one needing the other: optional inputs, list → get, write → read. */
import type { KeyMatch, PathIndex } from './candidates.js';
import type { Edge } from './edge.js';
import type { ToolFeatures } from './features.js';
import { flowEvidence, isDirect } from './hard-rules.js';

/** A response field of A can fill an optional parameter of B (a filter, a reference B accepts but does not need). */
export function optionalInputEdges(matches: readonly KeyMatch[]): Edge[] {
  const edges: Edge[] = [];
  for (const match of matches) {
    if (match.input.required || !near(match)) continue;
    edges.push({
      src: match.a.id,
      dst: match.b.id,
      kind: 'soft',
      rule: 'optional-input',
      score: 0.75,
      evidence: flowEvidence(match),
    });
  }
  return edges;
}

/**
 * A passes on a reference B also takes as a reference (an order's `petId` → POST /visits {petId}): related, not needed.
 */
export function sharedReferenceEdges(matches: readonly KeyMatch[]): Edge[] {
  const edges: Edge[] = [];
  for (const match of matches) {
    if (!match.input.required || isDirect(match) || !near(match)) continue;
    edges.push({
      src: match.a.id,
      dst: match.b.id,
      kind: 'soft',
      rule: 'shared-reference',
      score: 0.7,
      evidence: flowEvidence(match),
    });
  }
  return edges;
}

/**
 * A field of A's own resource, or of an object right under it: deeper references relate A and B too loosely to order
 * them.
 */
function near({ output }: KeyMatch): boolean {
  return output.owned || output.hops <= 1;
}

/** GET /pets lists the members GET /pets/{petId} fetches: the usual way to find an id before fetching it. */
export function listGetEdges(features: readonly ToolFeatures[], paths: PathIndex): Edge[] {
  const edges: Edge[] = [];
  for (const a of features) {
    if (a.method !== 'get' || a.shape === null || a.shape.endsWith('{}')) continue;
    for (const b of paths.byShape.get(`${a.group}\u0000${a.shape}/{}`) ?? []) {
      if (b.method !== 'get') continue;
      edges.push({
        src: a.id,
        dst: b.id,
        kind: 'soft',
        rule: 'list-get',
        score: 0.8,
        evidence: `GET ${a.path} lists what GET ${b.path} fetches`,
      });
    }
  }
  return edges;
}

const WRITES = new Set(['post', 'put', 'patch']);

/** A write on a path changes what a GET on the same path returns, so the read is ordered after it. */
export function writeReadEdges(features: readonly ToolFeatures[], paths: PathIndex): Edge[] {
  const edges: Edge[] = [];
  for (const a of features) {
    if (a.method === null || !WRITES.has(a.method) || a.shape === null) continue;
    for (const b of paths.byShape.get(`${a.group}\u0000${a.shape}`) ?? []) {
      if (b.method !== 'get') continue;
      edges.push({
        src: a.id,
        dst: b.id,
        kind: 'soft',
        rule: 'write-read',
        score: 0.75,
        evidence: `${a.method.toUpperCase()} ${a.path} changes what GET ${b.path} reads`,
      });
    }
  }
  return edges;
}
