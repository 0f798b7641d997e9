/** How a simulated answer differed from the real one, field by field (JSON Pointers; `*` for any array item). */
export interface AnswerDiff {
  status_match: boolean;
  /** Fields the real answer has and the simulated one lacks. */
  missing: string[];
  /** Fields the simulated answer has and the real one lacks. */
  extra: string[];
  /** Fields both have, with JSON types that never agree. */
  type_mismatches: { path: string; real: string[]; simulated: string[] }[];
}

/** Most paths each list names: a large body differing everywhere is still one readable log line. */
export const MAX_LISTED = 50;

/** Compares the shapes of two bodies: every path to a value, array items merged under `*`. */
export function answerDiff(
  real: { status: number; body: unknown },
  simulated: { status: number; body: unknown },
): AnswerDiff {
  const realShape = shape(real.body);
  const simulatedShape = shape(simulated.body);
  const missing: string[] = [];
  const extra: string[] = [];
  const type_mismatches: AnswerDiff['type_mismatches'] = [];
  for (const [path, types] of realShape) {
    const other = simulatedShape.get(path);
    if (!other) missing.push(path);
    else if (![...types].some((type) => agree(type, other))) {
      type_mismatches.push({ path, real: [...types].sort(), simulated: [...other].sort() });
    }
  }
  for (const path of simulatedShape.keys()) if (!realShape.has(path)) extra.push(path);
  return {
    status_match: real.status === simulated.status,
    missing: missing.slice(0, MAX_LISTED),
    extra: extra.slice(0, MAX_LISTED),
    type_mismatches: type_mismatches.slice(0, MAX_LISTED),
  };
}

/**
 * Whether a real value's type agrees with the simulated ones: an integer and a fraction are both numbers, and null
 * stands in for any value.
 */
function agree(type: string, simulated: Set<string>): boolean {
  if (simulated.has(type) || type === 'null' || simulated.has('null')) return true;
  return (type === 'integer' || type === 'number') && (simulated.has('integer') || simulated.has('number'));
}

function shape(body: unknown): Map<string, Set<string>> {
  const paths = new Map<string, Set<string>>();
  const walk = (value: unknown, path: string) => {
    let types = paths.get(path);
    if (!types) paths.set(path, (types = new Set()));
    types.add(jsonType(value));
    if (Array.isArray(value)) for (const item of value) walk(item, `${path}/*`);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value))
        walk(member, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    }
  };
  walk(body, '');
  return paths;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'undefined' ? 'none' : typeof value;
}
