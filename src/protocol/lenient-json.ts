/**
 * JSON as models write it inside a tag: possibly in a code fence, possibly with trailing commas, possibly several
 * values one after another (`{…}\n{…}` or `{…},{…}`) instead of an array, possibly with raw line breaks or tabs
 * inside strings (long text arguments). Anything else that is not JSON — single quotes, comments, bare words — is
 * refused with JSON.parse's own reason.
 */

export type JsonValues = { ok: true; values: unknown[] } | { ok: false; error: string };

const FENCE = /^```[\w-]*[ \t]*\r?\n?([\s\S]*?)(?:\r?\n?```)?\s*$/;

/** The fenced content when the text is a code fence (the closing fence may be missing), else the text. */
export function stripFence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```')) return trimmed;
  return FENCE.exec(trimmed)?.[1]?.trim() ?? trimmed;
}

/** The JSON values in `text`, in order. Empty text gives no values. */
export function parseJsonValues(text: string): JsonValues {
  const body = stripFence(text);
  if (body === '') return { ok: true, values: [] };
  // Most blocks are one value of plain JSON, which the lenient passes below would read the same way: parsed at
  // once, they skip three character-by-character copies of the text (long text arguments make those the turn's cost).
  try {
    return { ok: true, values: [JSON.parse(body)] };
  } catch {
    // Not plain JSON: read leniently below.
  }
  const pieces = splitTopLevel(body);
  if (typeof pieces === 'string') return { ok: false, error: pieces };
  const values: unknown[] = [];
  for (const piece of pieces) {
    try {
      values.push(JSON.parse(escapeControlCharacters(dropTrailingCommas(piece))));
    } catch (error) {
      return {
        ok: false,
        error: `not JSON: ${(error as Error).message}${pieces.length > 1 ? ` in ${preview(piece)}` : ''}`,
      };
    }
  }
  return { ok: true, values };
}

/**
 * Cuts text into top-level JSON values: an object or array runs to its matching bracket, anything else to the next
 * comma or newline at depth 0. Strings are skipped whole so brackets inside them do not count.
 */
function splitTopLevel(text: string): string[] | string {
  const pieces: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (start === -1) {
      if (/\s|,/.test(ch)) continue;
      start = i;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth < 0) return `not JSON: unbalanced ${ch} at position ${i}`;
      if (depth === 0) {
        pieces.push(text.slice(start, i + 1));
        start = -1;
      }
    } else if (depth === 0 && (ch === ',' || ch === '\n')) {
      pieces.push(text.slice(start, i));
      start = -1;
    }
  }
  if (inString) return 'not JSON: a string is never closed';
  if (depth > 0) return `not JSON: ${depth} bracket${depth > 1 ? 's are' : ' is'} never closed`;
  if (start !== -1) pieces.push(text.slice(start));
  return pieces.map((p) => p.trim()).filter((p) => p !== '');
}

/** Removes commas that directly precede a closing bracket, outside strings. */
function dropTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}

const ESCAPES: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Raw control characters inside strings (which JSON forbids there) written as escapes; outside strings nothing changes.
 */
export function escapeControlCharacters(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (!inString) {
      if (ch === '"') inString = true;
      out += ch;
    } else if (ch === '\\') {
      out += ch + (text[++i] ?? '');
    } else if (ch === '"') {
      inString = false;
      out += ch;
    } else if (ch < ' ') {
      out += ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return out;
}

function preview(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
