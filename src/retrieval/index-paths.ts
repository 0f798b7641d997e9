import { join } from 'node:path';

/** Index files live in the library directory's index/ folder, beside tools.db. */
export const indexDir = (libraryDir: string): string => join(libraryDir, 'index');
export const catalogFile = (libraryDir: string): string => join(indexDir(libraryDir), 'catalog.idx');
export const bm25File = (libraryDir: string): string => join(indexDir(libraryDir), 'bm25.idx');
/** One vector file per sentence encoder. */
export const vectorFile = (libraryDir: string, embedderKey: string): string =>
  join(indexDir(libraryDir), `vectors-${embedderKey}.idx`);

export function slugKey(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'model'
  );
}
