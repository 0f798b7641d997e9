import type { CallResult } from './types.js';

const TEXT = Symbol('toolenv.storedText');

/**
 * A cache hit as a CallResult whose body is parsed only when someone reads it. Until then a response can send the
 * stored JSON text as is (`untouchedBodyText`): a cached call then never parses and re-serializes its body. Once the
 * body has been read — and so might have been changed — or replaced, the text is no longer offered. The accessor is
 * non-enumerable, so copies (`{...result}`, structuredClone) never carry it.
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
  Object.defineProperty(result, TEXT, { value: () => (parsed ? undefined : text) });
  return result;
}

/** The body's JSON text when `result` is a cache hit whose body nobody has read or replaced; otherwise undefined. */
export function untouchedBodyText(result: CallResult): string | undefined {
  const text = (result as { [TEXT]?: () => string | undefined })[TEXT];
  return text === undefined ? undefined : text();
}
