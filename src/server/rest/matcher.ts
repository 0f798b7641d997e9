/** Matching a request's method and path to one operation of an API, as an OpenAPI router does. */

export interface Operation {
  id: string;
  method: string;
  /**
   * The OpenAPI path key: `/pets/{petId}`, possibly with a disambiguating suffix (`/#X-Amz-Target=…`, `/jobs?op=LIST`).
   */
  path: string;
  /**
   * The values a path parameter is limited to (its enum), by name: read where two parameters touch (`{name}{ext}`),
   * so the split gives the later one a value it takes (`report.json` → `report` and `.json`).
   */
  values?: Record<string, readonly string[]>;
}

/**
 * A suffix condition of a path key. Documents converted from AWS and a few others tell operations that share a
 * path apart by a fixed query or header value (`#Action=DescribeRegions`, `#X-Amz-Target=Svc.Op`) or by the
 * presence of a parameter (`#tagKeys`). Fixed values must match; presence only ranks.
 */
interface Condition {
  name: string;
  value?: string;
}

/** A templated segment: `parts` are the literal texts around the parameters (`{a}.{b}` → '', '.', ''). */
type Segment = { literal: string } | { parts: string[]; names: string[]; values: (readonly string[] | undefined)[] };

interface CompiledOperation {
  id: string;
  method: string;
  segments: Segment[];
  trailingSlash: boolean;
  conditions: Condition[];
  /**
   * Per segment: 2 literal, 1 literal text around parameters, 0 a bare parameter. Concrete paths win (`/pets/mine` over
   * `/pets/{id}`).
   */
  specificity: number[];
  order: number;
}

export interface ApiRoutes {
  operations: CompiledOperation[];
  /**
   * Operations by segment count and first segment (`3 repos`), or segment count alone (`3 *`) when that segment is
   * templated.
   */
  buckets: Map<string, CompiledOperation[]>;
}

/** The parts of a request the router looks at. */
export interface RouteRequest {
  method: string;
  /** Path segments after the API's base, each percent-decoded. */
  segments: string[];
  trailingSlash: boolean;
  /** Whether the request carries the query parameter or header `name` (with `value`, when given). */
  has(name: string, value?: string): boolean;
  /**
   * How many of an operation's required query, header and body parameters the request lacks; asked only of
   * operations a path and method leave tied (variants of one path that differ by what they require).
   */
  missingRequired?(operationId: string): number;
}

export type RouteMatch =
  | { kind: 'operation'; id: string; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'unmet-conditions'; conditions: string[] }
  | { kind: 'no-path' };

export function compileRoutes(operations: readonly Operation[]): ApiRoutes {
  const compiled = operations.map((op, order) => compileOperation(op, order));
  const buckets = new Map<string, CompiledOperation[]>();
  for (const op of compiled) {
    const first = op.segments[0];
    const key = `${op.segments.length} ${first === undefined ? '' : 'literal' in first ? first.literal : '*'}`;
    buckets.set(key, [...(buckets.get(key) ?? []), op]);
  }
  return { operations: compiled, buckets };
}

export function matchRoute(routes: ApiRoutes, request: RouteRequest): RouteMatch {
  const onPath: { op: CompiledOperation; params: Record<string, string> }[] = [];
  // Only operations with as many segments, whose first segment is this literal or a template, can match.
  const { length } = request.segments;
  const candidates = [
    ...(routes.buckets.get(`${length} ${request.segments[0] ?? ''}`) ?? []),
    ...(length > 0 ? (routes.buckets.get(`${length} *`) ?? []) : []),
  ];
  for (const op of candidates) {
    const params = matchPath(op, request.segments);
    if (params) onPath.push({ op, params });
  }
  if (onPath.length === 0) return { kind: 'no-path' };
  const methods = new Set(onPath.map(({ op }) => op.method));
  // HEAD is answered by the GET operation when the API declares no HEAD of its own (hono drops the body).
  const method = request.method === 'HEAD' && !methods.has('HEAD') ? 'GET' : request.method;
  const forMethod = onPath.filter(({ op }) => op.method === method);
  if (forMethod.length === 0) {
    if (methods.has('GET')) methods.add('HEAD');
    return { kind: 'method-not-allowed', allow: [...methods].sort() };
  }
  const eligible = forMethod.filter(({ op }) =>
    op.conditions.every((c) => c.value === undefined || request.has(c.name, c.value)),
  );
  if (eligible.length === 0) {
    return { kind: 'unmet-conditions', conditions: forMethod.map(({ op }) => op.conditions.map(describe).join('&')) };
  }
  // Fixed values met (all are, by now) and presence suffixes met count for an operation, missing presence suffixes
  // against it: `/{Bucket}#list-type=2` beats `/{Bucket}` when list-type=2 is sent, `/tags/{arn}#tagKeys` needs
  // tagKeys. Templated query keys (`/current?lat={lat}&lon={lon}`) are presence suffixes too.
  const score = (op: CompiledOperation) =>
    op.conditions.reduce((sum, c) => sum + (c.value !== undefined || request.has(c.name) ? 1 : -1), 0);
  const missing = new Map<string, number>();
  const lacks = (op: CompiledOperation) => {
    let n = missing.get(op.id);
    if (n === undefined) missing.set(op.id, (n = request.missingRequired?.(op.id) ?? 0));
    return n;
  };
  eligible.sort(
    (a, b) =>
      compareSpecificity(a.op, b.op) ||
      lacks(a.op) - lacks(b.op) ||
      score(b.op) - score(a.op) ||
      Number(b.op.trailingSlash === request.trailingSlash) - Number(a.op.trailingSlash === request.trailingSlash) ||
      a.op.order - b.op.order,
  );
  const best = eligible[0]!;
  return { kind: 'operation', id: best.op.id, params: best.params };
}

function compileOperation(op: Operation, order: number): CompiledOperation {
  const cut = op.path.search(/[#?]/);
  const base = cut === -1 ? op.path : op.path.slice(0, cut);
  const parts = base.split('/').slice(1);
  const trailingSlash = parts.length > 1 && parts[parts.length - 1] === '';
  if (parts[parts.length - 1] === '') parts.pop();
  const segments = parts.map((part) => compileSegment(part, op.values ?? {}));
  return {
    id: op.id,
    method: op.method.toUpperCase(),
    segments,
    trailingSlash,
    conditions: cut === -1 ? [] : parseConditions(op.path.slice(cut + 1)),
    specificity: segments.map((s) =>
      'literal' in s ? 2 : s.names.length === 1 && s.parts.every((p) => p === '') ? 0 : 1,
    ),
    order,
  };
}

function compileSegment(text: string, limited: Record<string, readonly string[]>): Segment {
  if (!/\{[^}]+\}/.test(text)) return { literal: text };
  const names: string[] = [];
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/\{([^}]+)\}/g)) {
    parts.push(text.slice(last, match.index));
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return { parts, names, values: names.map((name) => limited[name]) };
}

/**
 * The parameter values of a templated segment, or undefined. Each parameter takes at least one character and the
 * earlier ones as many as they can (`{name}.{ext}` splits report.final.pdf at the last dot), as a greedy regular
 * expression would — but placing each literal at its rightmost possible position, from the right, in linear
 * time: a regular expression of several `(.+)` backtracks polynomially on a long segment that almost matches.
 * Where a parameter touches the one before it (`{name}{ext}`), it takes the longest of its enum values the text
 * ends with, if it has an enum.
 */
function matchSegment(
  segment: { parts: string[]; names: string[]; values: (readonly string[] | undefined)[] },
  text: string,
): string[] | undefined {
  const { parts } = segment;
  const n = segment.names.length;
  const prefix = parts[0]!;
  const suffix = parts[n]!;
  if (!text.startsWith(prefix) || !text.endsWith(suffix)) return undefined;
  const values = new Array<string>(n);
  let end = text.length - suffix.length;
  for (let k = n - 1; k >= 1; k--) {
    const literal = parts[k]!;
    const fixed = literal === '' ? longestEnding(text, prefix.length + 1, end, segment.values[k]) : undefined;
    if (fixed !== undefined) {
      values[k] = fixed;
      end -= fixed.length;
      continue;
    }
    const from = end - 1 - literal.length;
    if (from < prefix.length + 1) return undefined;
    const at = text.lastIndexOf(literal, from);
    if (at < prefix.length + 1) return undefined;
    values[k] = text.slice(at + literal.length, end);
    end = at;
  }
  if (end <= prefix.length) return undefined;
  values[0] = text.slice(prefix.length, end);
  return values;
}

/** The longest of `choices` that `text` ends with at `end`, leaving at least `start` characters before it. */
function longestEnding(text: string, start: number, end: number, choices: readonly string[] | undefined) {
  let best: string | undefined;
  for (const choice of choices ?? [])
    if (choice !== '' && end - choice.length >= start && text.startsWith(choice, end - choice.length))
      if (best === undefined || choice.length > best.length) best = choice;
  return best;
}

/** `a=1&b` after `#` or `?`; a templated value (`date_from={date_from}`) is a presence condition on its key. */
function parseConditions(text: string): Condition[] {
  const conditions: Condition[] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? undefined : decode(part.slice(eq + 1));
    const templated = value !== undefined && /^\{[^}]*\}$/.test(value);
    conditions.push(value === undefined || value === '' || templated ? { name } : { name, value });
  }
  return conditions;
}

function matchPath(op: CompiledOperation, segments: readonly string[]): Record<string, string> | undefined {
  if (op.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = op.segments[i]!;
    const text = segments[i]!;
    if ('literal' in segment) {
      if (segment.literal !== text) return undefined;
      continue;
    }
    const values = matchSegment(segment, text);
    if (!values) return undefined;
    segment.names.forEach((name, k) => (params[name] = values[k]!));
  }
  return params;
}

function compareSpecificity(a: CompiledOperation, b: CompiledOperation): number {
  for (let i = 0; i < a.specificity.length; i++) {
    const diff = (b.specificity[i] ?? 0) - (a.specificity[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

function describe(condition: Condition): string {
  return condition.value === undefined ? condition.name : `${condition.name}=${condition.value}`;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
