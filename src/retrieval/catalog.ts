import type { Origin, Tool } from '../library/tool.js';

/** What a search result says about a tool without opening the library. */
export interface CatalogEntry {
  id: string;
  name: string;
  category: string;
  origin: Origin;
}

/**
 * The tools of an index in document order (= library order). Entries are kept as UTF-8 JSON bytes and
 * decoded only for the documents a search returns, so loading 50k of them is one file read.
 */
export class Catalog {
  private readonly categoryIds: Map<string, number>;
  private ids: Map<string, number> | undefined;

  private readonly bytes: Buffer;

  constructor(
    readonly lines: Uint8Array,
    /** Byte offset of each entry in `lines`, plus the end. */
    readonly offsets: Uint32Array,
    readonly categories: readonly string[],
    readonly categoryOf: Uint16Array,
  ) {
    this.categoryIds = new Map(categories.map((c, i) => [c, i]));
    this.bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
  }

  get size(): number {
    return this.categoryOf.length;
  }

  entry(doc: number): CatalogEntry {
    return JSON.parse(this.bytes.toString('utf8', this.offsets[doc]!, this.offsets[doc + 1]!)) as CatalogEntry;
  }

  categoryId(category: string): number | undefined {
    return this.categoryIds.get(category);
  }

  /** Document number of a tool id (built on first use: only evaluation needs it). */
  docOf(id: string): number | undefined {
    if (!this.ids) {
      this.ids = new Map();
      for (let doc = 0; doc < this.size; doc++) this.ids.set(this.entry(doc).id, doc);
    }
    return this.ids.get(id);
  }
}

export class CatalogBuilder {
  private readonly parts: Buffer[] = [];
  private readonly offsets: number[] = [0];
  private readonly categories = new Map<string, number>();
  private readonly categoryOf: number[] = [];
  private length = 0;

  add(tool: Tool): void {
    const line = Buffer.from(
      JSON.stringify({
        id: tool.id,
        name: tool.name,
        category: tool.category,
        origin: tool.origin,
      } satisfies CatalogEntry),
    );
    this.parts.push(line);
    this.length += line.byteLength;
    this.offsets.push(this.length);
    let category = this.categories.get(tool.category);
    if (category === undefined) {
      category = this.categories.size;
      if (category > 0xffff) throw new Error('more than 65,536 categories');
      this.categories.set(tool.category, category);
    }
    this.categoryOf.push(category);
  }

  finish(): Catalog {
    return new Catalog(
      Buffer.concat(this.parts),
      Uint32Array.from(this.offsets),
      [...this.categories.keys()],
      Uint16Array.from(this.categoryOf),
    );
  }
}
