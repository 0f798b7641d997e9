import { createModelResponder, type ModelResponder, type ModelResponderOptions } from '../model-responder.js';
import { LlamaEngine, type LlamaEngineOptions } from './engine.js';

export interface LlamaResponderOptions extends LlamaEngineOptions, Omit<ModelResponderOptions, 'generator'> {}

export interface LlamaResponder extends ModelResponder {
  readonly engine: LlamaEngine;
}

/** The model responder on a local GGUF file. Nothing is loaded until the first call (or `engine.load()`). */
export function createLlamaResponder(options: LlamaResponderOptions): LlamaResponder {
  const engine = new LlamaEngine(options);
  return Object.assign(createModelResponder({ ...options, generator: engine }), { engine });
}
