/**
 * OpenAPI `links`: a response that names the operation its values feed (`$response.body#/id` → `petId`) is the
 * most direct dependency evidence a document can give.
 */
import type { Edge } from './edge.js';
import { asNode, deref, type SchemaNode } from './schema-walk.js';

/** Finds the tool of one API by operationId or by `method path`. */
export interface OperationLookup {
  byOperationId(operationId: string): string | undefined;
  byRoute(method: string, path: string): string | undefined;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function linkEdges(document: unknown, lookup: OperationLookup): Edge[] {
  const doc = asNode(document);
  const paths = asNode(doc?.paths);
  if (!doc || !paths) return [];
  const edges: Edge[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const ops = asNode(item);
    if (!ops) continue;
    for (const method of METHODS) {
      const src = lookup.byRoute(method, path);
      const responses = asNode(asNode(ops[method])?.responses);
      if (!src || !responses) continue;
      for (const [status, raw] of Object.entries(responses)) {
        if (!/^2/.test(status)) continue;
        const links = asNode(deref(raw, doc)?.links);
        for (const [name, rawLink] of Object.entries(links ?? {})) {
          const link = deref(rawLink, doc);
          const dst = link && target(link, lookup);
          if (!link || !dst || dst === src) continue;
          edges.push({
            src,
            dst,
            kind: 'hard',
            rule: 'links',
            score: 1,
            evidence: `links.${name}: ${describeParameters(link)}`,
          });
        }
      }
    }
  }
  return edges;
}

function target(link: SchemaNode, lookup: OperationLookup): string | undefined {
  if (typeof link.operationId === 'string') return lookup.byOperationId(link.operationId);
  if (typeof link.operationRef !== 'string') return undefined;
  // Only references into the same document: `#/paths/~1pets~1{petId}/get`.
  const match = /^#\/paths\/([^/]+)\/([a-z]+)$/.exec(link.operationRef);
  if (!match) return undefined;
  const path = decodeURIComponent(match[1]!).replace(/~1/g, '/').replace(/~0/g, '~');
  return lookup.byRoute(match[2]!, path);
}

function describeParameters(link: SchemaNode): string {
  const params = asNode(link.parameters);
  const parts = Object.entries(params ?? {}).map(
    ([name, expr]) => `${name} ← ${typeof expr === 'string' ? expr : JSON.stringify(expr)}`,
  );
  if (link.requestBody !== undefined) parts.push(`body ← ${JSON.stringify(link.requestBody)}`);
  return parts.length > 0 ? parts.join(', ') : 'declared by the response';
}
