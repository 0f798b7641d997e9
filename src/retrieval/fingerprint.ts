import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LIBRARY_FILE, LibraryStore } from '../library/store.js';

/**
 * Which library content an index was built from. The stamp (size and mtime of tools.db and its WAL) is
 * free to read and changes on every write; the fingerprint is a digest of the searchable columns and
 * survives copies. An index is current when its stamp matches, or else when its fingerprint does.
 */
export class LibraryVersion {
  readonly stamp: string;
  private digest: string | undefined;

  constructor(readonly libraryDir: string) {
    const file = join(libraryDir, LIBRARY_FILE);
    const stat = (f: string) => (existsSync(f) ? `${statSync(f).size}:${statSync(f).mtimeMs}` : '-');
    this.stamp = `${stat(file)}|${stat(`${file}-wal`)}`;
  }

  /** Computed on first use: one pass over 50k rows is most of a second. */
  get fingerprint(): string {
    this.digest ??= libraryFingerprint(this.libraryDir);
    return this.digest;
  }
}

/** The library's fingerprint, read through its store (which owns the table layout). */
export function libraryFingerprint(libraryDir: string): string {
  const store = LibraryStore.open(libraryDir);
  try {
    return store.fingerprint();
  } finally {
    store.close();
  }
}
