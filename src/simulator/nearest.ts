/**
 * Nearest tool ids for an unknown one, over the whole library (50,011 ids) in a few milliseconds.
 *
 * Ids and queries are compared by their words: split at `_`, `-`, `.`, other separators and camelCase, lower case,
 * so `get_pet_by_id`, `getPetById` and `GET-PET-BY-ID` are the same words. An id scores by the share of the query's
 * words it holds (recall), each word weighted by its BM25 inverse document frequency over the library — an API's
 * name, which few ids share, says more than `get` — and by the share of its own words the query holds (precision,
 * weighing less). A query word a couple of edits from a library word (a typo, a plural) counts in part, and one the
 * library does not know is split into words it knows (`getpetbyid`). An id is suggested only when it holds at least
 * half the query's weight or is within a typo or two of the whole query: a nonsense id gets no suggestion rather
 * than an unrelated one. Ties go to the smaller edit distance between the whole ids, then to the id.
 */

/** Queries are cut to this many characters and words: ids are at most 64 characters; a huge query costs no more. */
const MAX_QUERY = 256;
const MAX_QUERY_WORDS = 16;

/** The share of the query's word weight an id must hold to be suggested. */
const MIN_RECALL = 0.5;

/** Recall counts this many times as much as precision in the ranking score (an F-beta with beta 2). */
const RECALL_BIAS = 4;

/** Candidates kept by word score before the edit distances of the whole ids are computed. */
const MIN_POOL = 24;

interface Match {
  word: number;
  similarity: number;
}

/** A query word: its weight and the library words it matches, best first. */
interface Term {
  weight: number;
  matches: Match[];
}

interface Scored {
  index: number;
  recall: number;
  score: number;
  distance: number;
}

/** The words of an id or a query, lower case: `getPetByID_v2` → get, pet, by, id, v2. */
function idWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Edits a word may be off by and still match: none for short words, where one edit makes another word. */
function typoBudget(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

/** Two rows of edit-distance cells, reused: the index compares a query word with thousands of library words. */
let rows = [new Int32Array(80), new Int32Array(80)];

/** Levenshtein distance, or `limit + 1` as soon as it must be more than `limit` (most library words are far off). */
function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (rows[0]!.length <= b.length) rows = [new Int32Array(b.length + 1), new Int32Array(b.length + 1)];
  let [previous, current] = rows as [Int32Array, Int32Array];
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let least = i;
    const code = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (code === b.charCodeAt(j - 1) ? 0 : 1);
      const cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      current[j] = cell;
      if (cell < least) least = cell;
    }
    if (least > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/** A bit per letter the word holds (digits share six bits): most words are ruled out by it, with no edit distance. */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    mask |= 1 << (code >= 97 ? code - 97 : 26 + ((code - 48) % 6));
  }
  return mask >>> 0;
}

function bitCount(x: number): number {
  let count = 0;
  for (let rest = x; rest !== 0; rest &= rest - 1) count++;
  return count;
}

/** A lower bound on the edit distance: one edit adds at most one letter a word lacks and removes at most one. */
function missingLetters(a: number, b: number): number {
  return Math.max(bitCount(a & ~b), bitCount(b & ~a));
}

/** An inverted index from the library's words to the ids holding them, with each word's BM25 idf. */
export class NearestIds {
  readonly ids: readonly string[];
  private readonly vocabulary = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly postings: number[][] = [];
  private readonly byLength: number[][] = [];
  private readonly masks: number[] = [];
  private readonly idf: Float64Array;
  /** Per id: the idf of its distinct words, summed (precision's denominator). */
  private readonly weights: Float64Array;

  constructor(ids: readonly string[]) {
    this.ids = ids;
    const idWordLists = ids.map((id, index) => [...new Set(idWords(id))].map((word) => this.add(word, index)));
    this.idf = Float64Array.from(this.postings, (list) => this.inverseFrequency(list.length));
    this.weights = Float64Array.from(idWordLists, (list) => list.reduce((sum, word) => sum + this.idf[word]!, 0));
  }

  find(query: string, n = 3): string[] {
    const text = query.slice(0, MAX_QUERY);
    const terms = n > 0 ? this.terms(text) : [];
    const total = terms.reduce((sum, term) => sum + term.weight, 0);
    if (total === 0) return [];
    const word = normalize(text);
    const suggested: Scored[] = [];
    for (const candidate of this.pool(terms, total, Math.max(n * 8, MIN_POOL))) {
      const other = normalize(this.ids[candidate.index]!);
      const length = Math.max(word.length, other.length);
      candidate.distance = editDistance(word, other);
      // A whole id a typo or two away is what was meant, whatever its words say.
      const typo = candidate.distance <= typoBudget(length);
      if (typo) candidate.score = Math.max(candidate.score, 1 - candidate.distance / length);
      if (typo || candidate.recall >= MIN_RECALL) suggested.push(candidate);
    }
    return suggested
      .sort((a, b) => b.score - a.score || a.distance - b.distance || compare(this.ids[a.index]!, this.ids[b.index]!))
      .slice(0, n)
      .map((candidate) => this.ids[candidate.index]!);
  }

  /** The `size` ids with the best word scores, best first. */
  private pool(terms: Term[], total: number, size: number): Scored[] {
    const { recall, precision, touched } = this.accumulate(terms);
    const best: Scored[] = [];
    for (const index of touched) {
      const r = recall[index]! / total;
      const p = Math.min(1, precision[index]! / this.weights[index]!);
      const score = ((1 + RECALL_BIAS) * p * r) / (RECALL_BIAS * p + r);
      if (best.length === size && score <= best[size - 1]!.score) continue;
      let at = best.length === size ? size - 1 : best.length;
      while (at > 0 && best[at - 1]!.score < score) at--;
      best.splice(at, 0, { index, recall: r, score, distance: 0 });
      if (best.length > size) best.pop();
    }
    return best;
  }

  private add(word: string, id: number): number {
    let index = this.vocabulary.get(word);
    if (index === undefined) {
      index = this.words.push(word) - 1;
      this.vocabulary.set(word, index);
      this.postings.push([]);
      this.masks.push(letterMask(word));
      (this.byLength[word.length] ??= []).push(index);
    }
    this.postings[index]!.push(id);
    return index;
  }

  /** BM25's idf: a word in every id weighs almost nothing, one in no id the most. */
  private inverseFrequency(count: number): number {
    return Math.log(1 + (this.ids.length - count + 0.5) / (count + 0.5));
  }

  /**
   * The query's distinct words as terms. A word no id holds weighs what the rarest do (the query asks for something
   * the library does not name); one that is not even a typo of a library word is split into known words if it can be.
   */
  private terms(query: string): Term[] {
    const terms = new Map<string, Term>();
    for (const word of idWords(query)) {
      if (terms.size === MAX_QUERY_WORDS) break;
      if (terms.has(word)) continue;
      const known = this.vocabulary.get(word);
      const matches = this.matches(word);
      const pieces = known === undefined && matches.length === 0 ? this.split(word) : undefined;
      const weight = known === undefined ? this.inverseFrequency(0) : this.idf[known]!;
      if (!pieces) terms.set(word, { weight, matches });
      for (const piece of pieces ?? []) {
        terms.set(piece, { weight: this.idf[this.vocabulary.get(piece)!]!, matches: this.matches(piece) });
      }
    }
    return [...terms.values()];
  }

  /** The library words equal to `word` or within its typo budget, most similar first. */
  private matches(word: string): Match[] {
    const exact = this.vocabulary.get(word);
    const matches: Match[] = exact === undefined ? [] : [{ word: exact, similarity: 1 }];
    const budget = typoBudget(word.length);
    if (budget === 0) return matches;
    const mask = letterMask(word);
    for (let length = word.length - budget; length <= word.length + budget; length++) {
      for (const index of this.byLength[length] ?? []) {
        if (index === exact || missingLetters(mask, this.masks[index]!) > budget) continue;
        const distance = editDistance(word, this.words[index]!, budget);
        if (distance <= budget) matches.push({ word: index, similarity: 1 - distance / Math.max(length, word.length) });
      }
    }
    return matches.sort((a, b) => b.similarity - a.similarity);
  }

  /** `getpetbyid` as the fewest known words of two letters or more (get, pet, by, id), or undefined. */
  private split(word: string): string[] | undefined {
    const best: (string[] | undefined)[] = [[]];
    for (let end = 2; end <= word.length; end++) {
      for (let start = 0; start <= end - 2; start++) {
        const before = best[start];
        const piece = word.slice(start, end);
        const fewer = !best[end] || best[end]!.length > (before?.length ?? Infinity) + 1;
        if (before && fewer && this.vocabulary.has(piece)) best[end] = [...before, piece];
      }
    }
    const words = best[word.length];
    return words && words.length > 1 ? words : undefined;
  }

  /** Per id, the query weight it holds (recall) and the idf of its words the query holds (precision). */
  private accumulate(terms: Term[]): { recall: Float64Array; precision: Float64Array; touched: number[] } {
    const recall = new Float64Array(this.ids.length);
    const precision = new Float64Array(this.ids.length);
    const counted = new Int32Array(this.ids.length).fill(-1);
    const touched: number[] = [];
    terms.forEach((term, t) => {
      // Matches come best first: an id counts for a term once, by the closest of its words.
      for (const { word, similarity } of term.matches) {
        for (const index of this.postings[word]!) {
          if (counted[index] === t) continue;
          if (counted[index] === -1) touched.push(index);
          counted[index] = t;
          recall[index]! += term.weight * similarity;
          precision[index]! += this.idf[word]! * similarity;
        }
      }
    });
    return { recall, precision, touched };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
