/**
 * References to upstream outputs inside a call's arguments.
 *
 * - `{"$ref": "c1.body.items[0].id"}` — the whole value is replaced by what the path points at, type kept.
 * - `"Bearer {{c1.body.token}}"` — a template inside a string; a string that is exactly one `{{…}}` becomes the raw
 *   value (type kept), otherwise each `{{…}}` is replaced by the value's text (JSON for objects and arrays).
 *
 * A path starts with a call id, then `body`, `status` or `headers`, then `.name`, `[index]` or `["any key"]` steps:
 * `c2.body[0].id`, `geo.body.results[1].location.lat`, `c1.headers.etag`, `c3.body["x-rate"]`.
 */

export type PathStep = string | number;

export interface RefPath {
  /** The path as written. */
  text: string;
  call: string;
  /** `body`, `status` or `headers` first, then field names and indexes. */
  steps: PathStep[];
}

/** What a reference is resolved against: the observation of one earlier call. */
export interface CallOutput {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export class RefError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'RefError';
  }
}

const ROOTS = new Set(['body', 'status', 'headers']);
const TEMPLATE = /\{\{\s*([^{}]+?)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([^{}]+?)\s*\}\}$/;

/** Parses `c1.body.items[0].id`; throws RefError naming what is wrong. */
export function parseRefPath(text: string): RefPath {
  const head = /^([A-Za-z][A-Za-z0-9_-]*)/.exec(text);
  if (!head) throw new RefError(text, 'a reference starts with a call id (`c1.body.id`)');
  const call = head[1]!;
  const steps: PathStep[] = [];
  let i = call.length;
  while (i < text.length) {
    const rest = text.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z_$][\w$-]*)/.exec(rest))) steps.push(m[1]!);
    else if ((m = /^\[(\d+)\]/.exec(rest))) steps.push(Number(m[1]));
    else if ((m = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest))) steps.push(JSON.parse(m[1]!) as string);
    else
      throw new RefError(
        text,
        `cannot read the path at ${JSON.stringify(rest.slice(0, 20))} (use .name, [0] or ["key"])`,
      );
    i += m[0].length;
  }
  const root = steps[0];
  if (root === undefined)
    throw new RefError(
      text,
      `a reference names a part of ${call}'s result: ${call}.body…, ${call}.status or ${call}.headers…`,
    );
  if (typeof root !== 'string' || !ROOTS.has(root)) {
    throw new RefError(
      text,
      'paths start at body, status or headers (did you mean ' +
        `${call}.body${typeof root === 'number' ? `[${root}]` : `.${root}`}…?)`,
    );
  }
  return { text, call, steps };
}

/** A `{"$ref": PATH}` object: exactly one member. */
export function isRefObject(value: unknown): value is { $ref: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { $ref?: unknown }).$ref === 'string'
  );
}

/**
 * Every reference in an arguments value, parsed. Malformed references are collected as problems rather than thrown,
 * so a message can be rejected with all its reasons at once.
 */
export function findRefs(value: unknown): { refs: RefPath[]; problems: string[] } {
  const refs: RefPath[] = [];
  const problems: string[] = [];
  const add = (text: string): void => {
    try {
      refs.push(parseRefPath(text.trim()));
    } catch (error) {
      problems.push((error as Error).message);
    }
  };
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      for (const m of node.matchAll(TEMPLATE)) add(m[1]!);
    } else if (Array.isArray(node)) {
      node.forEach(walk);
    } else if (node !== null && typeof node === 'object') {
      if ('$ref' in node) {
        if (isRefObject(node)) add(node.$ref);
        else problems.push(`a reference is an object with "$ref" alone, got ${JSON.stringify(node).slice(0, 80)}`);
        return;
      }
      Object.values(node).forEach(walk);
    }
  };
  walk(value);
  return { refs, problems };
}

/** The value a parsed path points at in one call's output; throws RefError saying where the path stops. */
export function resolvePath(path: RefPath, output: CallOutput): unknown {
  const [root, ...rest] = path.steps;
  let at: unknown = root === 'status' ? output.status : root === 'headers' ? (output.headers ?? {}) : output.body;
  let where = `${path.call}.${String(root)}`;
  for (const step of rest) {
    const next =
      typeof step === 'number'
        ? `${where}[${step}]`
        : /^[A-Za-z_$][\w$-]*$/.test(step)
          ? `${where}.${step}`
          : `${where}[${JSON.stringify(step)}]`;
    if (typeof step === 'number') {
      if (!Array.isArray(at)) throw new RefError(path.text, `${where} is ${kind(at)}, not an array`);
      if (step >= at.length)
        throw new RefError(path.text, `${where} has ${at.length} item${at.length === 1 ? '' : 's'}, no [${step}]`);
      at = at[step];
    } else {
      if (at === null || typeof at !== 'object' || Array.isArray(at))
        throw new RefError(path.text, `${where} is ${kind(at)}, not an object`);
      if (!Object.hasOwn(at, step)) {
        const keys = Object.keys(at);
        throw new RefError(
          path.text,
          `${next} is missing (${where} has ${keys.length === 0 ? 'no fields' : keys.slice(0, 8).join(', ')})`,
        );
      }
      at = (at as Record<string, unknown>)[step];
    }
    where = next;
  }
  return at;
}

/**
 * A copy of `value` with every reference replaced by what it points at. `lookup` gives the output of a call id
 * (undefined: no such result). With `leaveUnresolved`, references whose call has no output stay as written (the
 * dependency-blind Parallel baseline sends them as they are); otherwise they throw.
 */
export function bindRefs(
  value: unknown,
  lookup: (call: string) => CallOutput | undefined,
  options: { leaveUnresolved?: boolean } = {},
): unknown {
  const resolve = (text: string): { value: unknown } | undefined => {
    const path = parseRefPath(text.trim());
    const output = lookup(path.call);
    if (output === undefined) {
      if (options.leaveUnresolved) return undefined;
      throw new RefError(path.text, `${path.call} has no result to read`);
    }
    return { value: resolvePath(path, output) };
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = WHOLE_TEMPLATE.exec(node);
      if (whole) {
        const found = resolve(whole[1]!);
        return found === undefined ? node : found.value;
      }
      return node.replace(TEMPLATE, (text, inner: string) => {
        const found = resolve(inner);
        if (found === undefined) return text;
        return typeof found.value === 'string' ? found.value : JSON.stringify(found.value);
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      if (isRefObject(node)) {
        const found = resolve(node.$ref);
        return found === undefined ? node : found.value;
      }
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    }
    return node;
  };
  return walk(value);
}

/** The call ids an arguments value refers to (malformed references ignored: findRefs reports them). */
export function referencedCalls(value: unknown): string[] {
  return [...new Set(findRefs(value).refs.map((r) => r.call))];
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
