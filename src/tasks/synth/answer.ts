import { renderCall } from '../../agent/render.js';
import type { ToolCallObservation } from '../../episodes/types.js';

/** A value of a call's result the final answer must contain, and the field it sits in. */
export interface AnswerField {
  /** The field as a path into the body (`id`, `data.items[0].name`). */
  path: string;
  /** The field's own name, for the query. */
  key: string;
  value: string;
}

/** Keys an answer is most naturally asked for; others follow by depth. */
const PREFERRED = ['id', 'name', 'title', 'uri', 'url', 'email', 'key', 'slug', 'code', 'status', 'number', 'token'];
const MAX_DEPTH = 4;

/**
 * The value of `observation`'s body a final answer must contain: a leaf the model sees in the rendered observation
 * (observations are cut to 1,500 characters), specific enough that only reading the result gives it (a string of
 * 4 to 80 characters or a number of three digits or more, not a value the query itself states), preferring ids,
 * names and titles near the top.
 */
export function chooseAnswer(observation: ToolCallObservation, stated: readonly string[]): AnswerField | undefined {
  const seen = renderCall(observation);
  const leaves: (AnswerField & { depth: number; rank: number })[] = [];
  const walk = (value: unknown, path: string, key: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) return value.length > 0 ? walk(value[0], `${path}[0]`, key, depth + 1) : undefined;
    if (value !== null && typeof value === 'object') {
      for (const [member, child] of Object.entries(value)) walk(child, path === '' ? member : `${path}.${member}`, member, depth + 1);
      return;
    }
    const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) && Math.abs(value) >= 100 ? String(value) : undefined;
    if (text === undefined || text.length < 4 || text.length > 80 || key === '') return;
    if (stated.some((s) => s.includes(text) || text.includes(s)) || !seen.includes(JSON.stringify(value))) return;
    const rank = PREFERRED.indexOf(key.toLowerCase());
    leaves.push({ path, key, value: text, depth, rank: rank < 0 ? PREFERRED.length : rank });
  };
  walk(observation.body, '', '', 0);
  leaves.sort((a, b) => a.rank - b.rank || a.depth - b.depth);
  const best = leaves[0];
  return best && { path: best.path, key: best.key, value: best.value };
}
