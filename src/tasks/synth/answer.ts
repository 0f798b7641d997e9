import { renderCall } from '../../protocol/render.js';
import type { ToolCallObservation } from '../../wire/episodes.js';

/** A value of a call's result the final answer must contain, and the field it sits in. */
export interface AnswerField {
  /** The field as reference steps into the body (`.id`, `.data.items[0].name`, `["@odata.id"]`). */
  path: string;
  /**
   * How the query names the field: its own name, or its path from the top (`owned_by.id`) when another field of the
   * result has the same name, so "the id" is never ambiguous.
   */
  key: string;
  value: string;
}

/** Keys an answer is most naturally asked for; others follow by depth. */
const PREFERRED = ['id', 'name', 'title', 'uri', 'url', 'email', 'key', 'slug', 'code', 'status', 'number', 'token'];
const MAX_DEPTH = 4;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Leaf {
  steps: string[];
  key: string;
  value: unknown;
  depth: number;
}

/**
 * The value of `observation`'s body a final answer must contain: a leaf the model sees in the rendered observation
 * (observations are cut to 1,500 characters) that only reading this result gives — not a value the query states,
 * not one an `earlier` result already showed (then the answer would not prove this call was made), and specific
 * enough not to be guessed: a number of four characters or more, or a string of 4 to 80 characters with a digit, a
 * space, or ten characters at least. Ids, names and titles near the top come first; a field whose name is no plain
 * word (`$ref`, `@odata.type`, `0`) is never asked for. Comparisons ignore case, as the answer check does.
 */
export function chooseAnswer(
  observation: ToolCallObservation,
  stated: readonly string[],
  earlier: readonly ToolCallObservation[] = [],
): AnswerField | undefined {
  const seen = renderCall(observation);
  const before = earlier.map((o) => renderCall(o).toLowerCase());
  const said = stated.map((s) => s.toLowerCase());
  const leaves = leavesOf(observation.body);
  const keyCount = new Map<string, number>();
  for (const leaf of leaves) keyCount.set(leaf.key, (keyCount.get(leaf.key) ?? 0) + 1);
  const fit = leaves.flatMap((leaf) => {
    const text = statable(leaf.value);
    if (text === undefined || !IDENTIFIER.test(leaf.key) || !seen.includes(JSON.stringify(leaf.value))) return [];
    const lower = text.toLowerCase();
    if (said.some((s) => s.includes(lower) || lower.includes(s)) || before.some((b) => b.includes(lower))) return [];
    const rank = PREFERRED.indexOf(leaf.key.toLowerCase());
    return [{ leaf, text, rank: rank < 0 ? PREFERRED.length : rank }];
  });
  fit.sort((a, b) => a.rank - b.rank || a.leaf.depth - b.leaf.depth);
  const best = fit[0];
  if (!best) return undefined;
  const ambiguous = (keyCount.get(best.leaf.key) ?? 0) > 1;
  if (ambiguous && !best.leaf.steps.every((s) => IDENTIFIER.test(s) || /^\d+$/.test(s))) return undefined;
  return {
    path: referenceSteps(best.leaf.steps),
    key: ambiguous ? best.leaf.steps.filter((s) => !/^\d+$/.test(s)).join('.') : best.leaf.key,
    value: best.text,
  };
}

/** Every scalar leaf down to MAX_DEPTH, arrays read at their first item. */
function leavesOf(body: unknown): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (value: unknown, steps: string[], key: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) return value.length > 0 ? walk(value[0], [...steps, '0'], key, depth + 1) : undefined;
    if (value !== null && typeof value === 'object') {
      for (const [member, child] of Object.entries(value)) walk(child, [...steps, member], member, depth + 1);
      return;
    }
    if (key !== '') leaves.push({ steps, key, value, depth });
  };
  walk(body, [], '', 0);
  return leaves;
}

/** The value as the answer must contain it, when it is specific enough not to be guessed. */
function statable(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && String(value).length >= 4 ? String(value) : undefined;
  if (typeof value !== 'string' || value.length < 4 || value.length > 80) return undefined;
  return /\d|\s/.test(value) || value.length >= 10 ? value : undefined;
}

/** Steps as a reference path reads them: `.name`, `[0]`, `["odd key"]`. */
function referenceSteps(steps: readonly string[]): string {
  return steps
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : IDENTIFIER.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join('');
}
