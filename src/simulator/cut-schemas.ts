/**
 * A tool's response schema is cut at conversion (library/openapi/schema.ts keeps a few hundred nodes, so that grammars
 * and prompts stay small); the document the REST surface serves is whole. The synthesizer expands a cut placeholder from
 * the API's document when it generates a value there, so that answers validate against the served document at any depth.
 * Each expansion is itself bounded and cut, and expanded again only if generation goes that deep.
 */
import { LRUCache } from 'lru-cache';
import { resolvePointer } from '../library/openapi/refs.js';
import { convertSchema, dialectOf } from '../library/openapi/schema.js';
import type { JsonSchema } from '../library/tool.js';

/** The sub-schema of an API's document at a JSON pointer, converted as a response schema; undefined when none. */
export type CutExpander = (apiId: string, pointer: string) => JsonSchema | undefined;

/** Parsed documents held at once: a large cloud document is tens of megabytes parsed; most are well under one. */
const DOCUMENTS = 16;
/** Expanded placeholders held: a deep response touches tens of them, each a few hundred nodes at most. */
const EXPANSIONS = 16_384;

/** `documentOf` reads an API's stored document (the library store's `apiDocument`); each is parsed once while held. */
export function cutExpander(documentOf: (apiId: string) => unknown): CutExpander {
  const documents = new LRUCache<string, { document: unknown }>({ max: DOCUMENTS });
  const expansions = new LRUCache<string, { schema: JsonSchema | undefined }>({ max: EXPANSIONS });
  const documentFor = (apiId: string) => {
    let held = documents.get(apiId);
    if (!held) documents.set(apiId, (held = { document: documentOf(apiId) }));
    return held.document;
  };
  return (apiId, pointer) => {
    const key = `${apiId}\n${pointer}`;
    let held = expansions.get(key);
    if (!held) {
      const document = documentFor(apiId);
      const target = document === undefined ? undefined : resolvePointer(document, pointer);
      const schema =
        target === undefined
          ? undefined
          : convertSchema(target, { document, dialect: dialectOf(document), usage: 'response', pointer });
      expansions.set(key, (held = { schema }));
    }
    return held.schema;
  };
}
