/**
 * An operation's declared security, checked on the REST surface (`serve --security enforce`): the request must carry
 * the credentials of one of the operation's requirements (its own `security`, else the document's), as a real API
 * would refuse it otherwise. Credentials are checked for presence and form only; any well-formed one is accepted.
 */
// refs.ts's check, not json-body's: `serve --help` reads SECURITY_MODES from here and must not load hono.
import { isObject } from '../../library/openapi/refs.js';
import type { Operation } from './matcher.js';

export const SECURITY_MODES = ['ignore', 'enforce'] as const;
export type SecurityMode = (typeof SECURITY_MODES)[number];

/** A security scheme as the check reads it (`components.securitySchemes`). */
export interface Scheme {
  type: string;
  in?: string;
  name?: string;
  /** `http` schemes: basic, bearer, digest, … */
  scheme?: string;
}

/** Each alternative names schemes that must all be present; no alternatives, or an empty one, needs nothing. */
export type Requirements = string[][];

export interface ApiSecurity {
  schemes: Record<string, Scheme>;
  /** By tool id. */
  operations: Map<string, Requirements>;
}

/** Where the check reads a request's credentials. */
export interface Credentials {
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  cookie(name: string): string | undefined;
}

export interface Refusal {
  detail: string;
  /** The `WWW-Authenticate` challenge of the first alternative's HTTP-style schemes, when it has any. */
  challenge?: string;
}

/** The security of each operation of an API document, by the tool id its operation became. */
export function apiSecurity(document: unknown, operations: readonly Operation[]): ApiSecurity {
  const doc = isObject(document) ? document : {};
  const components = isObject(doc.components) ? doc.components : {};
  const schemes: Record<string, Scheme> = {};
  for (const [name, raw] of Object.entries(isObject(components.securitySchemes) ? components.securitySchemes : {})) {
    if (isObject(raw) && typeof raw.type === 'string') {
      schemes[name] = {
        type: raw.type,
        ...stringMember(raw, 'in'),
        ...stringMember(raw, 'name'),
        ...stringMember(raw, 'scheme'),
      };
    }
  }
  const global = requirements(doc.security) ?? [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  const byOperation = new Map<string, Requirements>();
  for (const op of operations) {
    const item = paths[op.path];
    const operation = isObject(item) ? item[op.method.toLowerCase()] : undefined;
    byOperation.set(op.id, (isObject(operation) ? requirements(operation.security) : undefined) ?? global);
  }
  return { schemes, operations: byOperation };
}

/** Why the request does not meet the operation's security; undefined when it does. */
export function unmetSecurity(security: ApiSecurity, toolId: string, credentials: Credentials): Refusal | undefined {
  const alternatives = security.operations.get(toolId) ?? [];
  if (alternatives.length === 0) return undefined;
  const reasons: string[] = [];
  for (const alternative of alternatives) {
    const missing = alternative
      .map((name) => schemeProblem(name, security.schemes[name], credentials))
      .filter((p): p is string => p !== undefined);
    if (missing.length === 0) return undefined;
    reasons.push(missing.join(' and '));
  }
  const detail =
    reasons.length === 1
      ? `${reasons[0]}`
      : `none of the operation's ${reasons.length} ways to authenticate was met: ${reasons.join('; or ')}`;
  const challenge = challengeOf(alternatives[0]!, security.schemes);
  return { detail, ...(challenge !== undefined ? { challenge } : {}) };
}

/** What is wrong with the request's credentials for one scheme; undefined when they are there and well-formed. */
function schemeProblem(_name: string, scheme: Scheme | undefined, credentials: Credentials): string | undefined {
  // A requirement naming a scheme the document does not define, or one no request can show (mutual TLS), is not
  // checked.
  if (scheme === undefined || scheme.type === 'mutualTLS') return undefined;
  if (scheme.type === 'apiKey') {
    if (!scheme.name || (scheme.in !== 'header' && scheme.in !== 'query' && scheme.in !== 'cookie')) return undefined;
    const value =
      scheme.in === 'header'
        ? credentials.header(scheme.name.toLowerCase())
        : scheme.in === 'query'
          ? credentials.query(scheme.name)
          : credentials.cookie(scheme.name);
    return value === undefined || value.trim() === ''
      ? `the API key ${JSON.stringify(scheme.name)} (${scheme.in}) is missing`
      : undefined;
  }
  const authorization = credentials.header('authorization');
  const kind = scheme.type === 'http' ? (scheme.scheme ?? '').toLowerCase() : 'bearer';
  if (kind === '') return undefined;
  if (authorization === undefined || authorization.trim() === '')
    return `an Authorization header (${display(kind)}) is missing`;
  const [given = '', ...rest] = authorization.trim().split(/\s+/);
  const token = rest.join(' ');
  if (given.toLowerCase() !== kind)
    return `the Authorization header is ${display(given.toLowerCase())}, not ${display(kind)}`;
  if (token === '') return `the Authorization header's ${display(kind)} credentials are empty`;
  if (kind === 'basic' && !isBasicPair(token))
    return 'the Authorization header\'s Basic credentials are not base64 of "user:password"';
  return undefined;
}

function isBasicPair(token: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) return false;
  return Buffer.from(token, 'base64').toString('utf8').includes(':');
}

function challengeOf(alternative: readonly string[], schemes: Record<string, Scheme>): string | undefined {
  const challenges = alternative.flatMap((name) => {
    const scheme = schemes[name];
    if (scheme === undefined) return [];
    if (scheme.type === 'http' && scheme.scheme) return [`${display(scheme.scheme.toLowerCase())} realm="api"`];
    if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return ['Bearer realm="api"'];
    return [];
  });
  return challenges.length > 0 ? challenges.join(', ') : undefined;
}

/** `security`: a list of requirement objects, each naming schemes; undefined when the member is absent or malformed. */
function requirements(value: unknown): Requirements | undefined {
  if (!Array.isArray(value)) return undefined;
  const alternatives: Requirements = [];
  for (const requirement of value) {
    if (!isObject(requirement)) continue;
    const names = Object.keys(requirement);
    // `{}` among the alternatives makes authentication optional.
    if (names.length === 0) return [];
    alternatives.push(names);
  }
  return alternatives;
}

function stringMember<K extends string>(raw: Record<string, unknown>, key: K): Partial<Record<K, string>> {
  const value = raw[key];
  return typeof value === 'string' ? ({ [key]: value } as Partial<Record<K, string>>) : {};
}

const display = (scheme: string) =>
  scheme === 'bearer' ? 'Bearer' : scheme === 'basic' ? 'Basic' : scheme.charAt(0).toUpperCase() + scheme.slice(1);
