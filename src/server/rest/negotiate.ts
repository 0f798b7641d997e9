/** Content negotiation among an operation's documented media types (RFC 9110 §12.5.1), as a mock server does it. */
import { parseAccept } from 'hono/utils/accept';

/** How the REST surface writes a body of a media type. */
export type MediaKind = 'json' | 'csv' | 'xml' | 'yaml' | 'text' | 'binary';

/** A wildcard the document allows, answered as one concrete type of its range. */
const CONCRETE: Record<string, string> = {
  '*/*': 'application/json',
  'application/*': 'application/json',
  'text/*': 'text/plain',
  'image/*': 'image/png',
  'audio/*': 'audio/mpeg',
  'video/*': 'video/mp4',
};

/** The type and subtype of a media type, lower-cased, without parameters. */
export function baseType(mediaType: string): string {
  return mediaType.split(';')[0]!.trim().toLowerCase();
}

export function mediaKind(mediaType: string): MediaKind {
  const type = baseType(mediaType);
  const [main = '', sub = ''] = type.split('/');
  if (/(^|[+.-])json($|[-;])|^x-amz-json/.test(sub) && !/smile|seq/.test(sub)) return 'json';
  if (sub === 'csv') return 'csv';
  if (sub === 'xml' || sub.endsWith('+xml')) return 'xml';
  if (/yaml/.test(sub)) return 'yaml';
  if (main === 'text' || /^(javascript|ecmascript|html|x-mpegurl)$/.test(sub)) return 'text';
  return 'binary';
}

/** The concrete type an answer in `documented` carries: wildcards become one type of their range. */
export function concrete(documented: string): string {
  const type = baseType(documented);
  if (!type.includes('*')) return documented;
  return CONCRETE[type] ?? 'application/octet-stream';
}

/**
 * The documented type answered when the request states no preference: application/json first, then other JSON, then
 * the first concrete type, as a JSON client would pick.
 */
export function defaultType(documented: readonly string[]): string {
  const json = documented.filter((type) => mediaKind(concrete(type)) === 'json');
  const exact = documented.find((type) => baseType(type) === 'application/json');
  const chosen =
    exact ??
    json.find((type) => !type.includes('*')) ??
    documented.find((type) => !type.includes('*')) ??
    json[0] ??
    documented[0]!;
  return concrete(chosen);
}

/**
 * The media type to answer among `documented` for the request's Accept header: the acceptable one of highest quality,
 * ties going to the more specific range, a JSON variant answered by a documented JSON type; the default without a
 * preference (no Accept, or only problem+json, which asks how errors are written); undefined when the Accept header
 * admits none of them (a 406).
 */
export function negotiate(documented: readonly string[], accept: string | undefined): string | undefined {
  if (documented.length === 0) return undefined;
  const ranges = parseAccept(accept ?? '').filter((range) => range.type !== 'application/problem+json');
  if (ranges.length === 0) return defaultType(documented);
  const ordered = ranges
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b.type) - specificity(a.type));
  for (const range of ordered) {
    const wanted = range.type.toLowerCase();
    if (wanted === '*/*' || wanted === '*') return defaultType(documented);
    const [main, sub] = wanted.split('/');
    if (sub === '*') {
      const inRange = documented.filter((type) => baseType(type).split('/')[0] === main);
      if (inRange.length > 0) return defaultType(inRange);
      continue;
    }
    const exact = documented.find((type) => baseType(type) === wanted);
    if (exact !== undefined) return exact;
    // A documented range covers the wanted type: `image/*` answers `image/jpeg` when that is asked for.
    const covering = documented.find((type) => covers(baseType(type), wanted));
    if (covering !== undefined) return wanted;
    // A JSON variant (`application/vnd.github.v3+json`) is read by a JSON parser: a documented JSON type answers it.
    const json = documented.filter((type) => mediaKind(concrete(type)) === 'json');
    if (mediaKind(wanted) === 'json' && json.length > 0) return defaultType(json);
  }
  return undefined;
}

function covers(range: string, type: string): boolean {
  if (range === '*/*') return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}

function specificity(type: string): number {
  if (type === '*/*' || type === '*') return 0;
  return type.endsWith('/*') ? 1 : 2;
}
