import { isStopWord, words } from '../../retrieval/tokenize.js';

/**
 * Capability slots from a task query: the query cut into clauses at sentence ends and at connectives that start a
 * new request ("and", "then", "also", "additionally", commas, semicolons), never inside quotes. A fragment too thin to
 * name a capability on its own ("and body \"Hi\"") joins the clause before it, so a list of arguments stays with
 * the request it belongs to.
 */

export interface Slot {
  index: number;
  /** The clause as written (values included): what arguments are read from. */
  text: string;
  /** The clause without its literal values and filler: what is searched for. */
  query: string;
}

/** Content words a clause needs to stand as a capability of its own. */
const MIN_CONTENT_WORDS = 2;
const MAX_SLOTS = 8;

const CONNECTIVE =
  /^(?:,|;|\.|\?|!|\band then\b|\bthen\b|\band also\b|\balso\b|\badditionally\b|\bas well as\b|\bafter that\b|\bafterwards\b|\bfinally\b|\band\b)/i;

/**
 * A clause that asks for a field of the result the request before it produces ("Tell me the \"name\" in the
 * result"): no capability of its own, so it stays with that request.
 */
const READS_RESULT =
  /^\s*(?:and\s+)?(?:tell me|give me|report|show me|return|what is|what's|which is)\b.*\b(?:in|of|from)\s+(?:the|its|that|this)\s+(?:result|response|answer|output)s?\W*$/i;

/** Filler at the start of a clause that says nothing about the capability. */
const LEAD =
  /^(?:(?:please|kindly|can you|could you|would you|i want to|i'd like to|i would like to|i need to|i need you to|help me|let me know|tell me|and|then|also|so|next|finally|afterwards|additionally)\b[\s,]*)+/i;

export function querySlots(query: string): Slot[] {
  // Clauses as spans of the query, so that a fragment joined back keeps the words between (`and body "Hi"`).
  const spans: { start: number; end: number }[] = [];
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i < query.length; i++) {
    const ch = query[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === '“') {
      quote = ch === '“' ? '”' : '"';
      continue;
    }
    const rest = query.slice(i);
    const m = CONNECTIVE.exec(rest);
    if (!m) continue;
    const punctuation = /^[,;.?!]/.test(m[0]);
    // A period inside a number, an email or a domain is not a sentence end; a word connective starts a word.
    if (punctuation && /^[.?!]/.test(m[0]) && !/^[.?!](\s|$)/.test(rest)) continue;
    if (!punctuation && i > 0 && !/\s/.test(query[i - 1]!)) continue;
    spans.push({ start, end: i });
    start = i + m[0].length;
    i = start - 1;
  }
  spans.push({ start, end: query.length });

  // `searchEnd`: where the clause's searched words end (a clause that only reads the result is not searched for).
  const merged: { start: number; end: number; searchEnd: number }[] = [];
  for (const span of spans) {
    const text = query.slice(span.start, span.end);
    if (text.trim() === '') continue;
    const last = merged.at(-1);
    if (last && READS_RESULT.test(text)) last.end = span.end;
    else if (last && contentWords(text) < MIN_CONTENT_WORDS) last.end = last.searchEnd = span.end;
    else merged.push({ ...span, searchEnd: span.end });
  }
  if (merged.length > 1 && contentWords(query.slice(merged[0]!.start, merged[0]!.end)) < MIN_CONTENT_WORDS) {
    merged.splice(0, 2, { start: merged[0]!.start, end: merged[1]!.end, searchEnd: merged[1]!.searchEnd });
  }

  const slots = merged
    .map((span, index) => {
      const text = query.slice(span.start, span.end).trim();
      return { index, text, query: searchText(query.slice(span.start, span.searchEnd).trim()) };
    })
    .filter((s) => s.query !== '');
  if (slots.length === 0) return [{ index: 0, text: query.trim(), query: query.trim() }];
  // Past the cap, the last slot takes the rest: one search too broad beats a request silently dropped.
  if (slots.length > MAX_SLOTS) {
    const tail = slots.splice(MAX_SLOTS - 1);
    slots.push({
      index: MAX_SLOTS - 1,
      text: tail.map((s) => s.text).join(' '),
      query: tail.map((s) => s.query).join(' '),
    });
  }
  return slots.map((s, index) => ({ ...s, index }));
}

/** The clause with quoted values, emails, URLs and leading filler removed. */
export function searchText(clause: string): string {
  return clause
    .replace(/"[^"]*"|“[^”]*”/g, ' ')
    .replace(/\S+@\S+|https?:\/\/\S+/g, ' ')
    .replace(LEAD, '')
    .replace(/[?!.,;:]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Content words as written: a parameter name (`organizationId`, `id4n`) is one word, however many humps it has. */
function contentWords(text: string): number {
  return searchText(text)
    .split(/\s+/)
    .filter((written) => words(written).some((w) => !isStopWord(w) && !/^\d+$/.test(w))).length;
}
