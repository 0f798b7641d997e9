import { existsSync } from 'node:fs';
import { Bm25Index, type Bm25Params } from './bm25.js';
import { Catalog } from './catalog.js';
import { IndexFileError, readIndexFile, readIndexHeader, section, writeIndexFile } from './index-file.js';
import type { LibraryVersion } from './fingerprint.js';
import { bm25File, catalogFile, vectorFile } from './index-paths.js';
import { VectorIndex } from './vectors.js';

/**
 * Bumped whenever tokenization, the text given to encoders or a file layout changes, so that old files read as stale.
 */
export const INDEX_FORMAT = 2;

interface BaseHeader {
  kind: 'catalog' | 'bm25' | 'vectors';
  format: number;
  /** LibraryVersion of the library the file was built from. */
  fingerprint: string;
  stamp: string;
  tools: number;
  built_at: string;
}

export interface Bm25Header extends BaseHeader {
  kind: 'bm25';
  params: Bm25Params;
  signature: string;
}

export interface VectorHeader extends BaseHeader {
  kind: 'vectors';
  model: string;
  signature: string;
  dim: number;
}

const base = (kind: BaseHeader['kind'], version: LibraryVersion, tools: number) => ({
  kind,
  format: INDEX_FORMAT,
  fingerprint: version.fingerprint,
  stamp: version.stamp,
  tools,
  built_at: new Date().toISOString(),
});

export function saveCatalog(libraryDir: string, version: LibraryVersion, catalog: Catalog): void {
  writeIndexFile(catalogFile(libraryDir), base('catalog', version, catalog.size), {
    lines: catalog.lines,
    offsets: catalog.offsets,
    categories: catalog.categories.join('\n'),
    categoryOf: catalog.categoryOf,
  });
}

export function loadCatalog(libraryDir: string): Catalog {
  const file = readIndexFile<BaseHeader>(catalogFile(libraryDir));
  const categories = section(file, 'categories', 'utf8');
  return new Catalog(
    section(file, 'lines', Uint8Array),
    section(file, 'offsets', Uint32Array),
    categories === '' ? [] : categories.split('\n'),
    section(file, 'categoryOf', Uint16Array),
  );
}

export function saveBm25(libraryDir: string, version: LibraryVersion, index: Bm25Index, params: Bm25Params): void {
  const header: Bm25Header = {
    ...base('bm25', version, index.docCount),
    kind: 'bm25',
    params,
    signature: bm25Signature(params),
  };
  writeIndexFile(bm25File(libraryDir), header, {
    terms: index.terms.join('\n'),
    offsets: index.offsets,
    docs: index.docs,
    impacts: index.impacts,
  });
}

/** BM25 impacts bake the parameters in: other parameters mean another index. */
export function bm25Signature(params: Bm25Params): string {
  return JSON.stringify(params);
}

export function loadBm25(libraryDir: string): Bm25Index {
  const file = readIndexFile<Bm25Header>(bm25File(libraryDir));
  const terms = section(file, 'terms', 'utf8');
  return new Bm25Index(
    terms === '' ? [] : terms.split('\n'),
    section(file, 'offsets', Uint32Array),
    section(file, 'docs', Uint32Array),
    section(file, 'impacts', Float32Array),
    file.header.tools,
  );
}

export function saveVectors(
  libraryDir: string,
  version: LibraryVersion,
  model: { key: string; signature: string },
  index: VectorIndex,
): void {
  const header: VectorHeader = {
    ...base('vectors', version, index.count),
    kind: 'vectors',
    model: model.key,
    signature: model.signature,
    dim: index.dim,
  };
  writeIndexFile(vectorFile(libraryDir, model.key), header, { vectors: index.data });
}

export function loadVectors(libraryDir: string, modelKey: string): VectorIndex {
  const file = readIndexFile<VectorHeader>(vectorFile(libraryDir, modelKey));
  return new VectorIndex(section(file, 'vectors', Float32Array), file.header.dim);
}

/**
 * Whether a file exists and was built from this library content (and, for vectors, this model).
 * A file that cannot be read counts as stale: it is rebuilt rather than trusted.
 */
export function isCurrent(file: string, version: LibraryVersion, signature?: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const header = readIndexHeader<BaseHeader & { signature?: string }>(file);
    if (header.format !== INDEX_FORMAT || (signature !== undefined && header.signature !== signature)) return false;
    return header.stamp === version.stamp || header.fingerprint === version.fingerprint;
  } catch (error) {
    if (error instanceof IndexFileError || error instanceof SyntaxError) return false;
    throw error;
  }
}
