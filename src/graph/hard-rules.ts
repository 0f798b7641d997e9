/** Rules whose edges mean dst cannot run correctly without src's output: dataflow, creation, OpenAPI links. */
import type { KeyMatch, PathIndex } from './candidates.js';
import type { Edge } from './edge.js';
import type { ToolFeatures } from './features.js';
import { idAttr, isAmbientWord, nounOf, words } from './names.js';

/**
 * Whether A hands B the resource B works on: A returns its own resource (the pet ids of GET /pets), or A looks
 * up something that names a related resource near the top of its response and B reads that one (GET an order,
 * its `petId` → GET /pets/{petId}). Anything else (an order's `petId` passed on to POST /visits, the `teamId` an
 * acknowledged alert mentions, a tag id three objects deep, the organization a site's WLAN belongs to) relates
 * the two without B needing A: that is soft.
 */
export function isDirect({ a, b, output, input, contextual }: KeyMatch): boolean {
  if (output.owned) return true;
  if (contextual) return false;
  const noun = input.key.slice(0, input.key.lastIndexOf('.'));
  return output.hops <= 1 && a.reads && b.reads && (b.addressed.includes(noun) || b.nouns[0] === noun);
}

/** A response field of A feeds a required parameter of B. */
export function dataflowEdges(matches: readonly KeyMatch[], scope: 'api' | 'provider'): Edge[] {
  const edges: Edge[] = [];
  for (const match of matches) {
    const { a, b, output, input } = match;
    if (!input.required || !isDirect(match)) continue;
    // Declared types on both sides are stronger evidence than a name match over untyped fields.
    const typed = output.type !== undefined && input.type !== undefined;
    edges.push({
      src: a.id,
      dst: b.id,
      kind: 'hard',
      rule: scope === 'api' ? 'dataflow' : 'provider-dataflow',
      score: scope === 'api' ? (typed ? 0.9 : 0.8) : typed ? 0.75 : 0.65,
      evidence: flowEvidence(match),
    });
  }
  return edges;
}

/**
 * Whether the parameter after a collection picks one of its members: `/pets/{petId}`, `/pets/{id}`, but not
 * `/boards/{b}/lists/{filter}` (a filter word) or `/carts/{c}/gift-message/{itemId}` (a cart item, not a message).
 */
function namesMember(param: string, collection: string): boolean {
  if (isAmbientWord(param)) return false;
  const ws = words(param);
  if (ws.length < 2 || !idAttr(ws[ws.length - 1]!)) return true;
  const noun = nounOf(ws.slice(0, -1));
  const member = nounOf(words(collection.slice(collection.lastIndexOf('/') + 1)));
  return member.endsWith(noun) || noun.endsWith(member);
}

/** The name of the parameter right after `collection` in `path` (`/pets/{petId}/photos`, `/pets` → `petId`). */
function memberParam(path: string, collection: string): string {
  const depth = collection.split('/').length;
  return path.split('/')[depth]?.replace(/^\{|\}$/g, '') ?? '';
}

export function flowEvidence({ output, input }: KeyMatch): string {
  return `response ${output.field || '(body)'} → ${input.location} ${input.param} (${input.key})`;
}

const MEMBER_METHODS = new Set(['get', 'put', 'patch', 'delete', 'post']);

/**
 * POST /pets creates the pet that GET|PUT|PATCH|DELETE /pets/{petId} and the pet's own sub-paths
 * (/pets/{petId}/photos, /pets/{petId}/uploadImage) act on. Paths further down (/pets/{petId}/photos/{photoId})
 * need more than the pet; their dependency on it runs through the tools that make or list those.
 */
export function createEdges(features: readonly ToolFeatures[], paths: PathIndex): Edge[] {
  const edges: Edge[] = [];
  for (const a of features) {
    if (!a.creates || a.shape === null) continue;
    for (const b of paths.byCollection.get(`${a.group}\u0000${a.shape}`) ?? []) {
      if (b.id === a.id || b.method === null || !MEMBER_METHODS.has(b.method)) continue;
      const rest = b.shape!.slice(a.shape.length + '/{}'.length);
      if (rest !== '' && (rest.includes('{}') || rest.indexOf('/', 1) >= 0)) continue;
      if (!namesMember(memberParam(b.path!, a.shape), a.shape)) continue;
      edges.push({
        src: a.id,
        dst: b.id,
        kind: 'hard',
        rule: 'creates',
        score: 0.85,
        evidence:
          `POST ${a.path} creates the ${a.nouns[0] ?? 'member'} ` +
          `that ${b.method.toUpperCase()} ${b.path} addresses`,
      });
    }
  }
  return edges;
}
