import type { Responder } from '../types.js';

/**
 * The Response layer's embedded default: answers every call, without a model. The synthesizer (faker, randexp,
 * its own ajv) loads on the first call it answers, so a server starts without it and one answering only from the
 * cache and examples never loads it. `synthesize` itself stays synchronous: once loaded, answers are as before.
 */
let synthesizer: Promise<typeof import('./index.js')> | undefined;

export const synthResponder: Responder = {
  name: 'synth',
  respond: async (tool, args, ctx) => (await (synthesizer ??= import('./index.js'))).synthesize(tool, args, ctx.seed),
};
