import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: compiled files live in dist/src/, sources in src/. */
export const packageRoot = resolve(
  dirname(fileURLToPath(import.meta.url)),
  import.meta.url.includes('/dist/') ? '../..' : '..',
);

export const defaultLibraryDir = (): string => process.env.TOOLENV_LIBRARY ?? join(packageRoot, 'library');
export const defaultCacheFile = (): string => process.env.TOOLENV_CACHE ?? join(packageRoot, 'cache', 'responses.db');
export const schemasDir = join(packageRoot, 'schemas');

/** The library's SQLite file inside its directory. */
export const LIBRARY_FILE = 'tools.db';
