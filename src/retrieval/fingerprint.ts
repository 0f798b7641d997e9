import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LIBRARY_FILE } from '../library/store.js';

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

/**
 * A digest of every tool's id, name, description, category and record size, in library order: any import
 * or rebuild that changes a searchable field changes it. octet_length() lets SQLite skip reading the
 * records themselves.
 */
export function libraryFingerprint(libraryDir: string): string {
  const db = new Database(join(libraryDir, LIBRARY_FILE), { readonly: true, fileMustExist: true });
  try {
    const hash = createHash('sha256');
    const rows = db
      .prepare<[], [string, string, string, string, number]>('SELECT id, name, description, category, octet_length(record) FROM tools ORDER BY seq')
      .raw()
      .iterate();
    for (const [id, name, description, category, size] of rows) hash.update(`${id}\u0000${name}\u0000${description}\u0000${category}\u0000${size}\u0001`);
    return hash.digest('hex').slice(0, 32);
  } finally {
    db.close();
  }
}
