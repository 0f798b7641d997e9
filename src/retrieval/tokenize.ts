import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stopwords.js';

const HUMPS = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/**
 * Splits text into raw words: runs of letters and digits, with identifiers broken at camelCase humps
 * (getPetById → get Pet By Id, HTTPResponse → HTTP Response). snake_case and kebab-case fall apart at
 * the separators. Letters and digits stay together so that names like ec2, s3 and oauth2 survive.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
    for (const part of run.split(HUMPS)) out.push(part.toLowerCase());
  }
  return out;
}

const stems = new Map<string, string>();

/** Porter stem of a lower-case word, memoized: a library of 50k tools repeats a few hundred thousand words. */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = /^\p{N}+$/u.test(word) ? word : stemmer(word);
    if (stems.size < 500_000) stems.set(word, s);
  }
  return s;
}

/** Whether a lower-case word is too common or too short to help find a tool. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word) || (word.length === 1 && !/\p{N}/u.test(word));
}

/** The index terms of a text: words, minus stop words, stemmed. Order and repeats are kept (term frequency counts). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) if (!isStopWord(word)) out.push(stem(word));
  return out;
}

/**
 * What BM25 indexes and looks up: tokenize()'s terms, and a capitalized name of two or three humps (GitHub,
 * YouTube, PayPal, LinkedIn) also kept whole beside its parts, since users write it as one word: split alone,
 * "GitHub v3 REST API" never matched the query word "github".
 */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const parts = run.split(HUMPS);
    for (const part of parts) {
      const word = part.toLowerCase();
      if (!isStopWord(word)) out.push(stem(word));
    }
    if (parts.length > 1 && parts.length <= 3 && /^\p{Lu}\p{Ll}/u.test(run)) out.push(stem(run.toLowerCase()));
  }
  return out;
}
