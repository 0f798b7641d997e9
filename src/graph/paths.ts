/** REST paths as resource structure: which collection each path parameter indexes, and what a path is about. */
import { isPathPrefix, isVerb, nounOf, words } from './names.js';

export interface Segment {
  /** Static text (extension stripped) or the parameter's name. */
  text: string;
  param: boolean;
}

export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    const param = /\{([^}]+)\}/.exec(raw);
    if (param) out.push({ text: param[1]!, param: true });
    else if (!isPathPrefix(raw))
      out.push({ text: raw.replace(/\.(json|xml|csv|txt|html|yaml|yml)$/i, ''), param: false });
  }
  return out;
}

/** The path with parameters blanked (`/pets/{petId}` → `/pets/{}`): two tools on one resource share it. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '') || '/';
}

/**
 * The resource noun a static segment names, or undefined when it names an action: one that opens or ends with
 * a verb (`findByStatus`, `login`, `customerSearch`) or selects by something (`AuthenticateByName`). A list that
 * ends a compound is a thing (`calendarList`, `blockList`).
 */
export function segmentNoun(segment: Segment): string | undefined {
  if (segment.param) return undefined;
  const ws = words(segment.text);
  const last = ws[ws.length - 1];
  if (last === undefined || isVerb(ws[0]!) || ws.includes('by') || (isVerb(last) && last !== 'list')) return undefined;
  return nounOf(ws);
}

/** What the path is about: the noun of its last resource-naming segment (`/pets/{petId}/uploadImage` → `pet`). */
export function pathNoun(segments: Segment[]): string | undefined {
  return segments[resourceIndex(segments)] && segmentNoun(segments[resourceIndex(segments)]!);
}

function resourceIndex(segments: Segment[]): number {
  for (let i = segments.length - 1; i >= 0; i--) if (segmentNoun(segments[i]!)) return i;
  return -1;
}

/**
 * What the collection at `index` belongs to, so that two collections with one noun stay apart:
 * - the nearest resource a parameter addresses before it: `team` for `/teams/{t}/pipelines_config/variables`,
 *   `app` for `/apps/{owner}/{app}/groups`, against `user` for `/users/{u}/pipelines_config/variables`;
 * - else the static segment right before it, as `/mysql` for `/databases/mysql/instances`, against `/mongodb`;
 * - else '' (a top-level collection).
 * Only owners of the same form are compared (see ownersFit): `/vision/models` and `/datasets/{d}/models` may hold the
 * same models.
 */
function ownerAt(segments: Segment[], index: number): string {
  for (let at = index - 1; at > 0; at--) {
    if (!segments[at]!.param || segments[at - 1]!.param) continue;
    const owner = segmentNoun(segments[at - 1]!);
    if (owner) return owner;
  }
  const before = segments[index - 1];
  return before && segmentNoun(before) ? `/${before.text.toLowerCase()}` : '';
}

/** The owner of the collection the path is about (see ownerAt). */
export function pathOwner(segments: Segment[]): string {
  const at = resourceIndex(segments);
  return at < 0 ? '' : ownerAt(segments, at);
}

/** The collection a path parameter indexes (`/pets/{id}` → `pet`) and that collection's owner. */
export function collectionOf(segments: Segment[], param: string): { noun: string; owner: string } | undefined {
  const at = segments.findIndex((s) => s.param && s.text === param);
  const noun = at > 0 ? segmentNoun(segments[at - 1]!) : undefined;
  return noun ? { noun, owner: ownerAt(segments, at - 1) } : undefined;
}

/** A POST on a path whose last segment names a collection creates one of its members (`POST /users/{id}/repos`). */
export function isCreate(method: string | null, segments: Segment[]): boolean {
  const last = segments[segments.length - 1];
  return method === 'post' && last !== undefined && segmentNoun(last) !== undefined;
}

/** Resource nouns named by an operation id or tool name, after its verbs (`getPetById` → `pet`). */
export function nameNoun(name: string): string | undefined {
  const ws: string[] = [];
  for (const w of words(name)) {
    if (w === 'by' || w === 'for' || w === 'with' || w === 'from' || w === 'of' || w === 'in') break;
    if (!isVerb(w)) ws.push(w);
  }
  return ws.length > 0 ? nounOf(ws) : undefined;
}
