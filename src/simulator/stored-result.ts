import type { CallResult } from './types.js';

/** Each stored result's text accessor, kept beside it so that copies never carry it. */
const texts = new WeakMap<CallResult, () => string | undefined>();

/**
 * A cache hit as a CallResult whose body is parsed only when someone reads it. Until then a response can send the
 * stored JSON text as is (`untouchedBodyText`): a cached call then never parses and re-serializes its body. Once the
 * body has been read — and so might have been changed — or replaced, the text is no longer offered; copies
 * (`{...result}`, structuredClone) are never offered it.
 */
export function storedResult(status: number, text: string, headers: Record<string, string>): CallResult {
  let body: unknown;
  let parsed = false;
  const result = {
    status,
    source: 'cache' as const,
    headers,
    get body(): unknown {
      if (!parsed) {
        body = JSON.parse(text);
        parsed = true;
      }
      return body;
    },
    set body(value: unknown) {
      body = value;
      parsed = true;
    },
  };
  texts.set(result, () => (parsed ? undefined : text));
  return result;
}

/** The body's JSON text when `result` is a cache hit whose body nobody has read or replaced; otherwise undefined. */
export function untouchedBodyText(result: CallResult): string | undefined {
  return texts.get(result)?.();
}
