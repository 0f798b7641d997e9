/**
 * A simulated answer written in the media type its operation documents: JSON variants as JSON under their own type,
 * CSV, XML, YAML and text synthesized from the JSON body, binary types as bytes. The body itself is the pipeline's
 * (cached as JSON); only its writing changes.
 */
import type * as Yaml from 'yaml';
import { lazyRequire } from '../../lazy-require.js';
import type { CallAnswer } from '../call-response.js';
import { binaryBody } from './binary.js';
import { toCsv } from './csv.js';
import { baseType, mediaKind } from './negotiate.js';
import { toXml } from './xml.js';

const yaml = lazyRequire<typeof Yaml>('yaml');

export interface MediaTarget {
  /** The concrete media type to answer in. */
  type: string;
  /** Its schema in the document, for XML's hints; $refs resolve against `document`. */
  schema: unknown;
  document: unknown;
}

/** `answer` (whose text is JSON, or null for none) rewritten as `target.type`. */
export function renderAnswer(answer: CallAnswer, target: MediaTarget): Response {
  const headers: Record<string, string> = { ...answer.headers, 'content-type': withCharset(target.type) };
  if (answer.text === null) {
    delete headers['content-type'];
    return new Response(null, { status: answer.status, headers });
  }
  const kind = mediaKind(target.type);
  if (kind === 'json') return new Response(answer.text, { status: answer.status, headers });
  const body = parsed(answer);
  if (kind === 'binary') {
    const bytes = binaryBody(baseType(target.type), answer.text);
    headers['content-length'] = String(bytes.byteLength);
    return new Response(bytes, { status: answer.status, headers });
  }
  return new Response(written(kind, body, target), { status: answer.status, headers });
}

function written(kind: 'csv' | 'xml' | 'yaml' | 'text', body: unknown, target: MediaTarget): string {
  switch (kind) {
    case 'csv':
      return toCsv(body);
    case 'xml':
      return typeof body === 'string' && body.trimStart().startsWith('<')
        ? body
        : toXml(body, target.schema, target.document);
    case 'yaml':
      return typeof body === 'string' ? body : yaml().stringify(body);
    case 'text':
      return typeof body === 'string' ? body : JSON.stringify(body);
  }
}

/** The answer's JSON text as a value; a body that was already text (a string responder's) stays that text. */
function parsed(answer: CallAnswer): unknown {
  const type = answer.headers['content-type'] ?? '';
  if (mediaKind(type) !== 'json') return answer.text;
  try {
    return JSON.parse(answer.text!) as unknown;
  } catch {
    return answer.text;
  }
}

/** Text types carry their charset, as servers send them. */
function withCharset(type: string): string {
  const kind = mediaKind(type);
  return (kind === 'csv' || kind === 'text' || kind === 'yaml') && !/;\s*charset=/i.test(type)
    ? `${type}; charset=utf-8`
    : type;
}
