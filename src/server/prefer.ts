import type { Context } from 'hono';
import type { CallControls } from '../simulator/types.js';
import { httpProblem } from './problems.js';
import { requestHeader } from './request-header.js';

/** Query parameters carrying the same controls as `Prefer`, for clients that cannot set headers; stripped before arguments are built. */
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
    if (!/^\d{3}$/.test(code) || status < 200 || status > 599) throw badControl(`code must be an HTTP status between 200 and 599, got ${JSON.stringify(code)}`);
    controls.code = status;
  }
  const example = raw.get('example');
  if (example !== undefined) {
    if (example === '') throw badControl('example must name one of the tool\'s examples, got an empty string');
    controls.example = example;
  }
  const dynamic = raw.get('dynamic');
  if (dynamic !== undefined) {
    if (dynamic !== 'true' && dynamic !== 'false') throw badControl(`dynamic must be true or false, got ${JSON.stringify(dynamic)}`);
    controls.dynamic = dynamic === 'true';
  }
  return controls;
}

/** `name=value` pairs of a Prefer header (RFC 7240): values may be quoted, `;` parameters are dropped, a bare name means "true". */
export function parsePrefer(header: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const match of header.matchAll(/\s*([^=,;\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^,;]*))?[^,]*/g)) {
    const name = match[1]!.toLowerCase();
    const value = match[2]?.trim();
    pairs.push([name, value === undefined ? 'true' : value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value]);
  }
  return pairs;
}

function badControl(detail: string) {
  return httpProblem(400, detail, { title: 'Invalid control' });
}
