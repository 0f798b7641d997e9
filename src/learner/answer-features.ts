import { words } from '../retrieval/tokenize.js';
import type { AskedField } from '../agent/heuristic/report.js';

/** Which field of the results answers a field the task asks for: one candidate per scalar leaf of a successful body. */
export const ANSWER_FEATURES = [
  'key_equal',
  'path_equal',
  'key_overlap',
  'step_named',
  'step_other',
  'depth',
  'string',
  'number',
  'boolean',
  'specific',
] as const;

/** As deep as a synthesized task reads its answer (tasks/synth/answer.ts), arrays at their first item. */
const MAX_DEPTH = 4;
const MAX_LEAVES = 64;

/** A successful call's body, and the 0-based slot of the call. */
export interface SlotResult {
  slot: number;
  body: unknown;
}

export interface AnswerCandidates {
  /** The leaves' values, as the answer states them. */
  values: string[];
  features: number[][];
}

/**
 * The leaves of every successful call's body (`slot`: the 0-based slot of the call) for one asked field: whether the
 * leaf's name or path is the one asked for, whether its call is the step the task names, its depth, its type, and
 * whether it is specific enough to be a value a task would ask for.
 */
export function answerCandidates(field: AskedField, results: readonly SlotResult[]): AnswerCandidates {
  const askedLeaf = field.key.split('.').pop()!;
  const askedWords = words(askedLeaf);
  const out: AnswerCandidates = { values: [], features: [] };
  for (const { slot, body } of results) {
    for (const leaf of leavesOf(body)) {
      const leafWords = new Set(words(leaf.key));
      out.values.push(String(leaf.value));
      out.features.push([
        normalize(leaf.key) === normalize(askedLeaf) ? 1 : 0,
        leaf.path.join('.') === field.key ? 1 : 0,
        askedWords.length === 0 ? 0 : askedWords.filter((w) => leafWords.has(w)).length / askedWords.length,
        field.step !== undefined && field.step === slot ? 1 : 0,
        field.step !== undefined && field.step !== slot ? 1 : 0,
        leaf.path.length / MAX_DEPTH,
        typeof leaf.value === 'string' ? 1 : 0,
        typeof leaf.value === 'number' ? 1 : 0,
        typeof leaf.value === 'boolean' ? 1 : 0,
        specific(leaf.value) ? 1 : 0,
      ]);
    }
  }
  return out;
}

interface Leaf {
  /** Member names from the top, array steps left out. */
  path: string[];
  key: string;
  value: string | number | boolean;
}

function leavesOf(body: unknown): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (value: unknown, path: string[], depth: number): void => {
    if (depth > MAX_DEPTH || leaves.length >= MAX_LEAVES) return;
    if (Array.isArray(value)) return value.length > 0 ? walk(value[0], path, depth + 1) : undefined;
    if (value !== null && typeof value === 'object') {
      for (const [member, child] of Object.entries(value)) walk(child, [...path, member], depth + 1);
      return;
    }
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    if (path.length > 0 && scalar) leaves.push({ path, key: path.at(-1)!, value });
  };
  walk(body, [], 0);
  return leaves;
}

/** A long number, or a string of 4 to 80 characters with a digit, a space, or ten characters at least. */
function specific(value: unknown): boolean {
  if (typeof value === 'number') return String(value).length >= 4;
  if (typeof value !== 'string' || value.length < 4 || value.length > 80) return false;
  return /\d|\s/.test(value) || value.length >= 10;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
