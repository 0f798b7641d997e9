import type { Context } from 'hono';
import { httpProblem } from '../http/problem-response.js';

/**
 * The deepest JSON a request may carry. Real tool arguments nest a handful of levels; a cap keeps recursive code
 * further down (validation, canonical cache keys, JSON.stringify) away from stack overflows on hostile input.
 */
export const MAX_JSON_DEPTH = 64;

/** Parses JSON text from a request, or throws a 400 problem naming what was wrong. */
export function parseJson(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw httpProblem(400, `${what} is not valid JSON: ${(error as Error).message}`, { title: 'Malformed JSON' });
  }
  if (depthExceeds(value, MAX_JSON_DEPTH)) {
    throw httpProblem(400, `${what} nests deeper than ${MAX_JSON_DEPTH} levels`, {
      title: 'JSON too deep',
      extra: { max_depth: MAX_JSON_DEPTH },
    });
  }
  return value;
}

/** The request body parsed as JSON, whatever its content type; undefined when the body is empty. */
export async function readJsonBody(c: Context): Promise<unknown> {
  return parseJsonBody(await c.req.text());
}

/** A request body's text parsed as JSON; undefined when it is empty or only whitespace. */
export function parseJsonBody(text: string): unknown {
  return text.trim() === '' ? undefined : parseJson(text, 'request body');
}

/**
 * Whether a parsed JSON value nests deeper than `max`: iterative, so that the check itself cannot overflow the stack.
 */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
