/** A scored document: its position in the catalog and its score. */
export interface Scored {
  doc: number;
  score: number;
}

const worse = (a: Scored, b: Scored) => a.score < b.score || (a.score === b.score && a.doc > b.doc);

/**
 * Keeps the k best documents pushed into it, in a bounded min-heap: O(n log k), no sort of all n.
 * Ties go to the lower document number so that results are deterministic.
 */
export class TopK {
  private readonly heap: Scored[] = [];
  constructor(private readonly k: number) {}

  /** The score a new document must beat to enter (−Infinity until k are held). */
  get threshold(): number {
    return this.heap.length < this.k ? -Infinity : this.heap[0]!.score;
  }

  push(doc: number, score: number): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push({ doc, score });
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (this.k > 0 && worse(heap[0]!, { doc, score })) {
      heap[0] = { doc, score };
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < heap.length && worse(heap[l]!, heap[min]!)) min = l;
        if (r < heap.length && worse(heap[r]!, heap[min]!)) min = r;
        if (min === i) break;
        [heap[i], heap[min]] = [heap[min]!, heap[i]!];
        i = min;
      }
    }
  }

  /** Best first. */
  result(): Scored[] {
    return [...this.heap].sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  }
}
