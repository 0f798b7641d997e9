import { join } from 'node:path';
import { LibraryStore } from '../../library/store.js';
import { cutExpander, type CutExpander } from '../cut-schemas.js';
import { PRIOR_FILE, readPrior, type ValuePrior } from '../prior/prior.js';
import type { Responder } from '../types.js';

/**
 * The Response layer's embedded default: answers every call, without a model. The synthesizer (faker, randexp,
 * its own ajv) loads on the first call it answers, so a server starts without it and one answering only from the
 * cache and examples never loads it. `synthesize` itself stays synchronous: once loaded, answers are as before.
 */
let synthesizer: Promise<typeof import('./index.js')> | undefined;

/**
 * The synthesizer drawing from a value prior; without one, from its own rules alone. With `expand`, cut response
 * schemas are expanded from the API's document, as `librarySynthResponder` does.
 */
export function synthResponderWith(prior: ValuePrior | undefined, expand?: CutExpander): Responder {
  return {
    name: 'synth',
    respond: async (tool, args, ctx) =>
      (await (synthesizer ??= import('./index.js'))).synthesize(tool, args, ctx.seed, prior, expand),
  };
}

export const synthResponder: Responder = synthResponderWith(undefined);

/**
 * The synthesizer with the library's own prior (its prior.json, read on the first call), or none where it has none,
 * expanding cut response schemas from the library's stored documents (read through a handle of its own).
 */
export function librarySynthResponder(library: string): Responder {
  let prior: { value: ValuePrior | undefined } | undefined;
  let expand: CutExpander | undefined;
  return {
    name: 'synth',
    respond: async (tool, args, ctx) => {
      prior ??= { value: readPrior(join(library, PRIOR_FILE)) };
      if (!expand) {
        let store: LibraryStore | undefined;
        expand = cutExpander((apiId) => (store ??= LibraryStore.open(library)).apiDocument(apiId));
      }
      return (await (synthesizer ??= import('./index.js'))).synthesize(tool, args, ctx.seed, prior.value, expand);
    },
  };
}
