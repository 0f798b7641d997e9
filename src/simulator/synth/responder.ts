import { join } from 'node:path';
import { PRIOR_FILE, readPrior, type ValuePrior } from '../prior/prior.js';
import type { Responder } from '../types.js';

/**
 * The Response layer's embedded default: answers every call, without a model. The synthesizer (faker, randexp,
 * its own ajv) loads on the first call it answers, so a server starts without it and one answering only from the
 * cache and examples never loads it. `synthesize` itself stays synchronous: once loaded, answers are as before.
 */
let synthesizer: Promise<typeof import('./index.js')> | undefined;

/** The synthesizer drawing from a value prior; without one, from its own rules alone. */
export function synthResponderWith(prior: ValuePrior | undefined): Responder {
  return {
    name: 'synth',
    respond: async (tool, args, ctx) =>
      (await (synthesizer ??= import('./index.js'))).synthesize(tool, args, ctx.seed, prior),
  };
}

export const synthResponder: Responder = synthResponderWith(undefined);

/** The synthesizer with the library's own prior (its prior.json, read on the first call), or none where it has none. */
export function librarySynthResponder(library: string): Responder {
  let prior: { value: ValuePrior | undefined } | undefined;
  return {
    name: 'synth',
    respond: async (tool, args, ctx) => {
      prior ??= { value: readPrior(join(library, PRIOR_FILE)) };
      return (await (synthesizer ??= import('./index.js'))).synthesize(tool, args, ctx.seed, prior.value);
    },
  };
}
