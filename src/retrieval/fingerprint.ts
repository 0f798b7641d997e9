import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { LIBRARY_FILE } from '../library/store.js';

/**
 * A digest of what the indexes are built from: every tool's id, name, description, category and the
 * byte length of its record, in library order. Any import or rebuild that changes a searchable field
 * changes it, and an index whose fingerprint differs is stale. octet_length() lets SQLite skip reading
 * the records themselves, so this costs one pass over the small columns.
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
