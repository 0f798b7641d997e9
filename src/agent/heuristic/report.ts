import { compactJson } from '../../protocol/compact.js';

/**
 * What an answer says of one result. A task that asks for fields (`Tell me the "name" in the result`, `the "data.id"
 * from step 2`) gets those fields' values, read from the body; any other gets the body itself, shortened. A value
 * read out beats a body cut to a few hundred characters: the cut may drop the very field the user asked for.
 */

export interface AskedField {
  /** The field as the task names it: a key, or a dotted path of keys (`owner.login`). */
  key: string;
  /** The step (0-based) whose result the task reads it from, when the task says (`from step 2`, `from (2)`). */
  step?: number;
}

const ASKED = /\bthe\s+"([^"]+)"\s+(?:in the result|from step (\d+)|from \((\d+)\))/gi;
const ASKS = /\b(?:tell me|give me|report|show me|return|what is|what's|which is)\b/i;
const BODY_CHARS = 300;

/** The fields the task asks to be told, in order (none when it asks for none). */
export function askedFields(query: string): AskedField[] {
  const at = query.search(ASKS);
  if (at < 0) return [];
  return [...query.slice(at).matchAll(ASKED)].map((m) => {
    const step = m[2] ?? m[3];
    return step === undefined ? { key: m[1]! } : { key: m[1]!, step: Number(step) - 1 };
  });
}

/** The text without the fields it asks for: `the "id" in the result` names a field, it gives no argument value. */
export function withoutAsked(text: string): string {
  const at = text.search(ASKS);
  return at < 0 ? text : text.slice(0, at) + text.slice(at).replace(ASKED, ' ');
}

/**
 * `body`'s value at a dotted key: each step a member, an array read at its first item; when the path does not lead
 * anywhere, the first member of that last name found depth-first.
 */
export function fieldValue(body: unknown, key: string): { value: unknown } | undefined {
  const steps = key.split('.');
  let node: unknown = body;
  for (const step of steps) {
    node = firstItem(node);
    if (node === null || typeof node !== 'object' || !(step in node)) {
      node = undefined;
      break;
    }
    node = (node as Record<string, unknown>)[step];
  }
  if (node !== undefined) return { value: firstItem(node) };
  return findMember(body, steps.at(-1)!, 0);
}

/** The asked fields `body` holds, as the answer states them; undefined when it holds none. */
function reportFields(body: unknown, asked: readonly AskedField[]): string | undefined {
  const found = asked.flatMap((field) => {
    const hit = fieldValue(body, field.key);
    return hit ? [`the "${field.key}" is ${compactJson(hit.value, BODY_CHARS)}`] : [];
  });
  return found.length > 0 ? found.join(', ') : undefined;
}

/**
 * What the answer says of slot `index`'s result: the asked fields of its step (and those no step claims); failing
 * those, any asked field its body holds (the task's steps and the heuristic's slots need not line up); else the body.
 */
export function reportSlot(body: unknown, asked: readonly AskedField[], index: number): string {
  const own = asked.filter((f) => f.step === undefined || f.step === index);
  return reportFields(body, own) ?? reportFields(body, asked) ?? `returned ${compactJson(body, BODY_CHARS)}`;
}

function firstItem(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** As deep as a synthesized task reads its answer field (tasks/synth/answer.ts), arrays at their first item. */
const MAX_DEPTH = 4;

function findMember(value: unknown, name: string, depth: number): { value: unknown } | undefined {
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) return findMember(value[0], name, depth + 1);
  const record = value as Record<string, unknown>;
  if (name in record && record[name] !== null && typeof record[name] !== 'object') return { value: record[name] };
  for (const child of Object.values(record)) {
    const hit = findMember(child, name, depth + 1);
    if (hit) return hit;
  }
  return undefined;
}
