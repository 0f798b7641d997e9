/**
 * Nearest tool ids for an unknown one, over the whole library (50,011 ids) in a few milliseconds.
 *
 * Ids and queries are compared in a normalized form — lower case, letters and digits only — so `get_pet_by_id`,
 * `getPetById` and `GETPETBYID` are the same word. Candidates are the ids sharing a trigram with the query (an
 * inverted index over integer-coded trigrams, built once per id list); each scores the mean of the Dice
 * coefficient (overall similarity: catches typos) and the share of the query's trigrams it contains (catches a
 * missing prefix such as the API name); ties go to the smaller edit distance, then to the id.
 */

const ALPHABET = 37; // pad, a–z, 0–9
const PAD = 0;

/** Queries are cut to this many characters: ids are at most 64, and a huge unknown id must not cost more. */
const MAX_QUERY = 256;

/** Rows are walked in full, even common ones, until this many candidates share a trigram with the query. */
const MIN_CANDIDATES = 1000;

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function symbol(code: number): number {
  return code >= 97 ? code - 96 : code - 48 + 27;
}

/** The distinct trigram codes of a normalized word padded with one pad symbol on each side, ascending. */
function trigrams(word: string): Int32Array {
  const at = (i: number) => (i < 0 || i >= word.length ? PAD : symbol(word.charCodeAt(i)));
  const codes = new Int32Array(word.length);
  for (let i = 0; i < word.length; i++) codes[i] = (at(i - 1) * ALPHABET + at(i)) * ALPHABET + at(i + 1);
  codes.sort();
  let distinct = 0;
  for (let i = 0; i < codes.length; i++) if (i === 0 || codes[i] !== codes[i - 1]) codes[distinct++] = codes[i]!;
  return codes.subarray(0, distinct);
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** An inverted trigram index over one list of ids (compressed rows: `start[code]..start[code+1]` in `postings`). */
export class NearestIds {
  readonly ids: readonly string[];
  private readonly start: Int32Array;
  private readonly postings: Int32Array;
  private readonly sizes: Uint16Array;

  constructor(ids: readonly string[]) {
    this.ids = ids;
    // First pass: every id's distinct trigram codes, flat, then how many ids hold each code.
    const offsets = new Int32Array(ids.length + 1);
    let flat = new Int32Array(ids.length * 24);
    let used = 0;
    ids.forEach((id, index) => {
      const codes = trigrams(normalize(id));
      if (used + codes.length > flat.length) {
        const grown = new Int32Array(Math.max(flat.length * 2, used + codes.length));
        grown.set(flat);
        flat = grown;
      }
      flat.set(codes, used);
      used += codes.length;
      offsets[index + 1] = used;
    });
    this.sizes = new Uint16Array(ids.length);
    const counts = new Int32Array(ALPHABET ** 3 + 1);
    for (let index = 0; index < ids.length; index++) {
      this.sizes[index] = offsets[index + 1]! - offsets[index]!;
      for (let p = offsets[index]!; p < offsets[index + 1]!; p++) counts[flat[p]! + 1]!++;
    }
    for (let code = 1; code < counts.length; code++) counts[code]! += counts[code - 1]!;
    this.start = counts;
    // Second pass: ids into their codes' rows, in id order.
    this.postings = new Int32Array(used);
    const fill = counts.slice(0, -1);
    for (let index = 0; index < ids.length; index++) {
      for (let p = offsets[index]!; p < offsets[index + 1]!; p++) this.postings[fill[flat[p]!]!++] = index;
    }
  }

  find(query: string, n = 3): string[] {
    const word = normalize(query.slice(0, MAX_QUERY));
    if (word === '' || n <= 0) return [];
    // Rare trigrams first: they find the candidates by walking their rows. A common trigram (in more than 1/16
    // of the ids) is then only looked up for the candidates found (binary search in its row, which is in id
    // order) once there are enough of them — so a query costs little even when it shares "com" with every id.
    const codes = [...trigrams(word)].sort((a, b) => this.rowLength(a) - this.rowLength(b));
    const common = Math.max(64, this.ids.length >> 4);
    const shared = new Uint16Array(this.ids.length);
    const touched: number[] = [];
    for (const code of codes) {
      const from = this.start[code]!;
      const to = this.start[code + 1]!;
      if (to - from <= common || touched.length < MIN_CANDIDATES) {
        for (let p = from; p < to; p++) {
          const index = this.postings[p]!;
          if (shared[index]!++ === 0) touched.push(index);
        }
      } else {
        for (const index of touched) if (this.inRow(from, to, index)) shared[index]!++;
      }
    }
    // Keep the best `pool` candidates in a small array sorted by score, descending.
    const pool = Math.max(n * 8, 24);
    const best: { index: number; score: number }[] = [];
    for (const index of touched) {
      const hits = shared[index]!;
      const score = hits / (codes.length + this.sizes[index]!) + hits / codes.length / 2;
      if (best.length === pool && score <= best[pool - 1]!.score) continue;
      let at = best.length === pool ? pool - 1 : best.length;
      while (at > 0 && best[at - 1]!.score < score) at--;
      best.splice(at, 0, { index, score });
      if (best.length > pool) best.pop();
    }
    return best
      .map(({ index, score }) => ({ id: this.ids[index]!, score, distance: editDistance(word, normalize(this.ids[index]!)) }))
      .sort((a, b) => b.score - a.score || a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, n)
      .map((candidate) => candidate.id);
  }

  private rowLength(code: number): number {
    return this.start[code + 1]! - this.start[code]!;
  }

  private inRow(from: number, to: number, index: number): boolean {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.postings[mid]! < index) lo = mid + 1;
      else hi = mid;
    }
    return lo < to && this.postings[lo] === index;
  }
}
