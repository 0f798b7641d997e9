import type { Arguments } from '../types.js';

/** A recorded call of the same tool shown to the model ahead of the real one. Spec examples have no arguments. */
export interface FewShotExample {
  arguments?: Arguments;
  status: number;
  body: unknown;
}

/**
 * Where the model responders find few-shot examples: answers already stored for a tool. Both response caches satisfy
 * it (PostgreSQL's asynchronously). Called on every model call, so it must be cheap: an indexed lookup.
 */
export interface FewShotSource {
  examples(toolId: string, limit: number): FewShotExample[] | Promise<FewShotExample[]>;
}
