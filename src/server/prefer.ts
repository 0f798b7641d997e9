import type { Context } from 'hono';
import type { CallControls } from '../simulator/types.js';
import { httpProblem } from '../http/problem-response.js';
import { requestHeader } from './request-header.js';

/**
 * Query parameters carrying the same controls as `Prefer`, for clients that cannot set headers; stripped before
 * arguments are built.
 */
export const CONTROL_QUERY_PARAMS = { code: '__code', example: '__example', dynamic: '__dynamic' } as const;

/** The controls of a request (its Prefer header and control query parameters); most requests carry neither. */
export function requestControls(c: Context): CallControls {
  return controlsOf(requestHeader(c, 'prefer'), c.req.url);
}

/** The controls of a Prefer header and the query of a request target (a path or a whole URL). */
export function controlsOf(prefer: string | undefined, url: string): CallControls {
  const query = url.indexOf('?');
  if (prefer === undefined && query === -1) return {};
  return readControls(prefer, new URLSearchParams(query === -1 ? '' : url.slice(query + 1)));
}

/**
 * Per-request controls in Prism's style: `Prefer: code=429, example=NAME, dynamic=true` (several Prefer headers
 * arrive joined by commas), overridden by the `__code`, `__example` and `__dynamic` query parameters. Preferences
 * ToolEnv does not know are ignored, as RFC 7240 asks; known ones with bad values are a 400 problem.
 */
export function readControls(prefer: string | undefined, query: URLSearchParams): CallControls {
  const raw = new Map<string, string>();
  for (const [name, value] of parsePrefer(prefer ?? '')) raw.set(name, value);
  for (const [key, param] of Object.entries(CONTROL_QUERY_PARAMS)) {
    const value = query.get(param);
    if (value !== null) raw.set(key, value);
  }
  const controls: CallControls = {};
  const code = raw.get('code');
  if (code !== undefined) {
    const status = Number(code);
    // 1xx are interim responses, not answers a simulated API can give.
    if (!/^\d{3}$/.test(code) || status < 200 || status > 599)
      throw badControl(`code must be an HTTP status between 200 and 599, got ${JSON.stringify(code)}`);
    controls.code = status;
  }
  const example = raw.get('example');
  if (example !== undefined) {
    if (example === '') throw badControl("example must name one of the tool's examples, got an empty string");
    controls.example = example;
  }
  const dynamic = raw.get('dynamic');
  if (dynamic !== undefined) {
    if (dynamic !== 'true' && dynamic !== 'false')
      throw badControl(`dynamic must be true or false, got ${JSON.stringify(dynamic)}`);
    controls.dynamic = dynamic === 'true';
  }
  return controls;
}

/**
 * `name=value` pairs of a Prefer header (RFC 7240): values may be quoted, `;` parameters are dropped, a bare name
 * means "true". One pass over the header: a regular expression matched at every position was quadratic in its length.
 */
export function parsePrefer(header: string): [string, string][] {
  const pairs: [string, string][] = [];
  let i = 0;
  while (i < header.length) {
    const nameStart = skipSpace(header, i);
    let nameEnd = nameStart;
    while (nameEnd < header.length && !NAME_END.has(header[nameEnd]!)) nameEnd++;
    let j = skipSpace(header, nameEnd);
    let value = 'true';
    if (header[j] === '=') {
      const valueStart = skipSpace(header, j + 1);
      const quoted = header[valueStart] === '"' ? quotedString(header, valueStart) : undefined;
      if (quoted) {
        value = quoted.value;
        j = quoted.end;
      } else {
        j = valueStart;
        while (j < header.length && header[j] !== ',' && header[j] !== ';') j++;
        value = header.slice(valueStart, j).trim();
      }
    }
    if (nameEnd > nameStart) pairs.push([header.slice(nameStart, nameEnd).toLowerCase(), value]);
    // Parameters and anything else up to the next preference are dropped.
    while (j < header.length && header[j] !== ',') j++;
    i = j + 1;
  }
  return pairs;
}

const NAME_END = new Set(['=', ',', ';', ' ', '\t']);

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

/**
 * The unescaped content of the quoted string opening at `start` and the index after it, or undefined when it never
 * closes.
 */
function quotedString(text: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return { value, end: i + 1 };
    if (char === '\\' && i + 1 < text.length) i++;
    value += text[i];
  }
  return undefined;
}

function badControl(detail: string) {
  return httpProblem(400, detail, { title: 'Invalid control' });
}
