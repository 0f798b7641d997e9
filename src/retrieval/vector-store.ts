import { LibraryStore } from '../library/store.js';
import { buildVectors, type Progress } from './build.js';
import type { Embedder } from './embedder.js';
import type { LibraryVersion } from './fingerprint.js';
import { vectorFile } from './index-paths.js';
import { isCurrent, loadVectors, saveVectors } from './persist.js';
import type { VectorIndex } from './vectors.js';

/** Whether the library's vector file for this encoder is current. */
export function vectorsCurrent(libraryDir: string, version: LibraryVersion, embedder: Embedder): boolean {
  return isCurrent(vectorFile(libraryDir, embedder.key), version, embedder.signature);
}

/** The library's vectors for an encoder: loaded when current, else embedded now and saved. */
export async function ensureVectors(
  libraryDir: string,
  version: LibraryVersion,
  embedder: Embedder,
  { force = false, onProgress }: { force?: boolean; onProgress?: Progress } = {},
): Promise<VectorIndex> {
  if (!force && vectorsCurrent(libraryDir, version, embedder)) {
    onProgress?.(0, 1);
    const vectors = loadVectors(libraryDir, embedder.key);
    onProgress?.(1, 1);
    return vectors;
  }
  const store = LibraryStore.open(libraryDir);
  try {
    const vectors = await buildVectors(store, embedder, onProgress);
    saveVectors(libraryDir, version, embedder, vectors);
    return vectors;
  } finally {
    store.close();
  }
}
