import type { IncomingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';

/** The Host names a server answers: a list (loopback names always in it), or any. */
export type AllowedHosts = readonly string[] | 'any';

/** What a server bound to a loopback address answers by default. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Host verdicts kept: clients send one or two values, an attacker many, so the map is cleared when full. */
const MAX_VERDICTS = 64;

/**
 * The default for a bound address. On loopback only the loopback names: a web page that rebinds its own name to
 * 127.0.0.1 then sends its name as Host and is refused. On any other address every name: such a server is reached
 * directly by whoever can route to it (Docker service names, a cluster's DNS), so a Host list protects nothing
 * that `--api-key` does not, and would break those names.
 */
export function defaultAllowedHosts(bound: string): AllowedHosts {
  return isLoopback(bound) ? LOOPBACK_HOSTS : 'any';
}

/** `--allowed-hosts`: comma-separated names (ports are not compared), or `*` for any. */
export function parseAllowedHosts(text: string): AllowedHosts {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.includes('*')) return 'any';
  if (names.length === 0) throw new Error('--allowed-hosts must name at least one host, or * for any');
  for (const name of names)
    if (/[\s/@?#]/.test(name) || hostname(name) !== name)
      throw new Error(
        `--allowed-hosts: ${JSON.stringify(name)} is not a host name (give names without ports or schemes)`,
      );
  return [...new Set([...LOOPBACK_HOSTS, ...names])];
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The name of a Host header value or an origin's host: lower case, without its port, IPv6 brackets kept. */
function hostname(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

export interface Refusal {
  status: number;
  title: string;
  detail: string;
}

/**
 * What a request is refused for before anything reads it: no Host (HTTP/1.1 requires one; node's own answer is
 * a bare 400), a Host not allowed (DNS rebinding), or a cross-site Origin (a web page's `text/plain` POST, which
 * browsers send without asking first). Requests without Origin (every non-browser client) pass the Origin check;
 * one whose Origin names the Host it was sent to is the page the server itself served. No CORS headers are sent,
 * so browsers keep other sites from reading any answer.
 */
export function requestRefusal(allowed: AllowedHosts): (headers: IncomingHttpHeaders) => Refusal | undefined {
  const verdicts = new Map<string, Refusal | null>();
  const judge = (host: string): Refusal | null => {
    let verdict = verdicts.get(host);
    if (verdict === undefined) {
      verdict = hostRefusal(host, allowed);
      if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
      verdicts.set(host, verdict);
    }
    return verdict;
  };
  return (headers) => {
    const host = headers.host;
    if (host === undefined || host === '')
      return { status: 400, title: 'Missing Host', detail: 'the request has no Host header; HTTP/1.1 requires one' };
    const refused = judge(host);
    if (refused) return refused;
    const origin = headers.origin;
    if (origin !== undefined && !sameSite(origin, host)) {
      return {
        status: 403,
        title: 'Cross-site request',
        detail:
          `requests from the web origin ${JSON.stringify(origin)} ` +
          'are not allowed; this server sends no CORS headers',
      };
    }
    return undefined;
  };
}

/** Why a Host value is refused: it is no host (userinfo, a bad port), or not an allowed one; null when it is fine. */
function hostRefusal(host: string, allowed: AllowedHosts): Refusal | null {
  let parsed: URL | undefined;
  try {
    parsed = new URL(`http://${host}/`);
  } catch {
    parsed = undefined;
  }
  if (
    parsed?.username !== '' ||
    parsed.password !== '' ||
    parsed.pathname !== '/' ||
    parsed.search !== '' ||
    parsed.hash !== ''
  ) {
    return {
      status: 400,
      title: 'Invalid Host',
      detail: `the Host header ${JSON.stringify(host)} is not a host name with an optional port`,
    };
  }
  if (allowed === 'any' || allowed.includes(parsed.hostname)) return null;
  return {
    status: 403,
    title: 'Host not allowed',
    detail:
      `this server does not answer for the host ${JSON.stringify(parsed.hostname)}; start it with --allowed-hosts ` +
      'naming it (or * for any) to allow it',
  };
}

/**
 * Whether an Origin header is the server's own: it names the Host the request was sent to. Another port of the
 * same machine is another site; `null` (sandboxed frames, files) is none.
 */
function sameSite(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** A listener that answers refused requests with their problem and passes the others to `next`. */
export function guardedListener(allowed: AllowedHosts, next: RequestListener): RequestListener {
  const refusal = requestRefusal(allowed);
  return (incoming, outgoing) => {
    const refused = refusal(incoming.headers);
    if (refused) refuse(outgoing, refused);
    else next(incoming, outgoing);
  };
}

function refuse(outgoing: ServerResponse, { status, title, detail }: Refusal): void {
  const body = JSON.stringify(problem(status, title, detail));
  // The request body is not read: the connection is closed rather than left holding it.
  outgoing.writeHead(status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  outgoing.end(body);
}
