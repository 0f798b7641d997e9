import type { CallResult } from './types.js';

/**
 * A stored result's state: its JSON text until the body is read or replaced, then the body itself (boxed: a body may be
 * a string).
 */
const state = Symbol('stored result');

type Stored = { body?: unknown; [state]: string | { body: unknown } };

/**
 * Every stored result shares this accessor. An object literal with its own get/set closures is built by runtime calls
 * that leave each result in V8's slow dictionary mode: microseconds per cached call, and slow reads wherever it goes.
 */
const bodyProperty: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: Stored): unknown {
    const held = this[state];
    if (typeof held !== 'string') return held.body;
    const parsed = { body: JSON.parse(held) as unknown };
    this[state] = parsed;
    return parsed.body;
  },
  set(this: Stored, body: unknown) {
    this[state] = { body };
  },
};

/**
 * A cache hit as a CallResult whose body is parsed only when someone reads it. Until then a response can send the
 * stored JSON text as is (`untouchedBodyText`): a cached call then never parses and re-serializes its body. Once the
 * body has been read — and so might have been changed — or replaced, the text is no longer offered. `body` is an own
 * enumerable property and the state is not, so copies (`{...result}`, structuredClone) carry the parsed body and are
 * never offered the text.
 */
export function storedResult(status: number, text: string, headers: Record<string, string>): CallResult {
  return withStoredBody({ status, source: 'cache' as const, headers }, text) as CallResult;
}

/**
 * Gives `target` a `body` that is `text` parsed on first read, as a stored result's is (added as a new member:
 * redefining an existing one is V8's slow case): episodes carry a cached body into their observations and run
 * state this way, so that a step or a turn that never reads it never parses it, and `untouchedBodyText` still offers
 * its text.
 */
export function withStoredBody<T extends object>(target: T, text: string): T & { body: unknown } {
  Object.defineProperty(target, state, { value: text, writable: true });
  return Object.defineProperty(target, 'body', bodyProperty) as T & { body: unknown };
}

/**
 * The body's JSON text when `result` is a cache hit (or carries one's body) that nobody has read or replaced; otherwise
 * undefined.
 */
export function untouchedBodyText(result: object): string | undefined {
  const held = (result as Partial<Stored>)[state];
  return typeof held === 'string' ? held : undefined;
}
