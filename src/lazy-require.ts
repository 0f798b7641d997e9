import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on its first use rather than with the module naming it: a server start loads only what
 * answering `/healthz` needs, and a package's tree of small files (qs, ajv, ws) costs tens of milliseconds to load.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
