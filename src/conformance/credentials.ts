/**
 * Credentials for `toolenv conformance --security enforce`: what a request must carry to meet an operation's declared
 * security, and malformed ones it must be refused with. Each set is held to `security.ts`'s own check before use, so
 * a valid set meets one of the operation's alternatives and a wrong one meets none.
 */
import { type ApiSecurity, type Credentials, type Scheme, unmetSecurity } from '../server/rest/security.js';

/** Where credentials go on a request: headers by lower-case name (cookies as `cookie`), query parameters by name. */
export interface CredentialSet {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** An operation's credentials: none needed, or a set that meets its security and a malformed one that does not. */
export interface OperationCredentials {
  valid: CredentialSet;
  /** Undefined where no malformed set fails every alternative (a check that reads nothing, say). */
  wrong?: CredentialSet;
  /** Every header and query name any alternative reads: what a request without credentials must not carry. */
  names: CredentialSet;
}

const API_KEY = 'toolenv-conformance-key';
const TOKEN = 'toolenv-conformance-token';
const BASIC = Buffer.from('toolenv:conformance').toString('base64');

/** Undefined where the operation needs no credentials (or none this check could show). */
export function operationCredentials(security: ApiSecurity, toolId: string): OperationCredentials | undefined {
  if (unmetSecurity(security, toolId, readerOf(empty())) === undefined) return undefined;
  const alternatives = security.operations.get(toolId) ?? [];
  const names = empty();
  for (const name of alternatives.flat()) place(names, security.schemes[name], '');
  for (const alternative of alternatives) {
    const valid = empty();
    const wrong = empty();
    for (const name of alternative) {
      place(valid, security.schemes[name], 'valid');
      place(wrong, security.schemes[name], 'wrong');
    }
    if (unmetSecurity(security, toolId, readerOf(valid)) !== undefined) continue;
    const refused = unmetSecurity(security, toolId, readerOf(wrong)) !== undefined;
    return { valid, names, ...(refused ? { wrong } : {}) };
  }
  return undefined;
}

/** The request's URL (path and query) and headers with `set` applied, and every name of `without` removed first. */
export function withCredentials(
  url: string,
  headers: Record<string, string>,
  set: CredentialSet | undefined,
  without: CredentialSet,
): { url: string; headers: Record<string, string> } {
  const parsed = new URL(url, 'http://conformance.invalid');
  for (const name of Object.keys(without.query)) parsed.searchParams.delete(name);
  const kept = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !Object.hasOwn(without.headers, name.toLowerCase())),
  );
  for (const [name, value] of Object.entries(set?.query ?? {})) parsed.searchParams.set(name, value);
  return { url: `${parsed.pathname}${parsed.search}`, headers: { ...kept, ...set?.headers } };
}

/** One scheme's credential in `set`: well-formed, malformed, or `''` to record the names it reads. */
function place(set: CredentialSet, scheme: Scheme | undefined, form: 'valid' | 'wrong' | ''): void {
  if (scheme === undefined) return;
  if (scheme.type === 'apiKey' && scheme.name) {
    // An empty key counts as missing.
    const value = form === 'valid' ? API_KEY : '';
    if (scheme.in === 'header') set.headers[scheme.name.toLowerCase()] = value;
    else if (scheme.in === 'query') set.query[scheme.name] = value;
    else if (scheme.in === 'cookie') {
      const cookie = `${scheme.name}=${value}`;
      set.headers.cookie = set.headers.cookie ? `${set.headers.cookie}; ${cookie}` : cookie;
    }
    return;
  }
  if (scheme.type !== 'http' && scheme.type !== 'oauth2' && scheme.type !== 'openIdConnect') return;
  const kind = scheme.type === 'http' ? (scheme.scheme ?? '').toLowerCase() : 'bearer';
  if (kind === '') return;
  const label = kind.charAt(0).toUpperCase() + kind.slice(1);
  // Malformed: the scheme's name with no credentials after it.
  set.headers.authorization = form === 'wrong' ? label : kind === 'basic' ? `Basic ${BASIC}` : `${label} ${TOKEN}`;
}

function empty(): CredentialSet {
  return { headers: {}, query: {} };
}

function readerOf(set: CredentialSet): Credentials {
  const cookies = new Map(
    (set.headers.cookie ?? '')
      .split(';')
      .filter((part) => part.includes('='))
      .map((part) => {
        const at = part.indexOf('=');
        return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
      }),
  );
  return {
    header: (name) => set.headers[name],
    query: (name) => set.query[name],
    cookie: (name) => cookies.get(name),
  };
}
