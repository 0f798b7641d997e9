import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Embedder } from './embedder.js';
import { slugKey } from './index-paths.js';

export type Pooling = 'mean' | 'cls';

export interface OnnxEmbedderOptions {
  /** Overrides the pooling read from the model's 1_Pooling/config.json (mean when that is absent). */
  pooling?: Pooling;
  /** Text put before each query, e.g. bge's "Represent this sentence for searching relevant passages: ". */
  queryPrefix?: string;
}

export class ModelDirError extends Error {}

/** The weights file of a model directory in transformers.js layout; ModelDirError naming what is missing otherwise. */
export function onnxWeights(modelDir: string): string {
  const dir = resolve(modelDir);
  for (const file of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, file))) throw new ModelDirError(`${dir} is not a model directory: ${file} is missing`);
  }
  const model = ['model.onnx', 'model_quantized.onnx'].map((f) => join(dir, 'onnx', f)).find((f) => existsSync(f));
  if (!model)
    throw new ModelDirError(`${dir} has no ONNX weights: expected onnx/model.onnx or onnx/model_quantized.onnx`);
  return model;
}

/**
 * A sentence encoder from a local Hugging Face model directory in transformers.js layout
 * (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx or onnx/model_quantized.onnx),
 * such as bge-large-en-v1.5. Remote models are switched off: nothing is downloaded.
 */
export async function loadOnnxEmbedder(modelDir: string, options: OnnxEmbedderOptions = {}): Promise<Embedder> {
  const dir = resolve(modelDir);
  const model = onnxWeights(dir);
  const dtype = model.endsWith('_quantized.onnx') ? 'q8' : 'fp32';
  const pooling = options.pooling ?? poolingOf(dir);
  const queryPrefix = options.queryPrefix ?? queryPromptOf(dir);

  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dirname(dir);
  const extractor = await pipeline('feature-extraction', basename(dir), { dtype, device: 'cpu' });

  const embed = async (texts: string[]) => {
    if (texts.length === 0) return [];
    const output = await extractor(texts, { pooling, normalize: true });
    const [rows, dim] = output.dims as [number, number];
    const data = output.data as Float32Array;
    return Array.from({ length: rows }, (_, i) => data.slice(i * dim, (i + 1) * dim));
  };
  const [probe] = await embed(['probe']);
  const stat = statSync(model);
  return {
    key: `onnx-${slugKey(basename(dir))}`,
    signature: createHash('sha256')
      .update(
        JSON.stringify([
          readFileSync(join(dir, 'config.json'), 'utf8'),
          model,
          stat.size,
          stat.mtimeMs,
          pooling,
          queryPrefix,
        ]),
      )
      .digest('hex')
      .slice(0, 16),
    dim: probe!.length,
    embedQueries: (texts) => embed(queryPrefix ? texts.map((t) => queryPrefix + t) : texts),
    embedPassages: embed,
    close: () => extractor.dispose(),
  };
}

function readJson(file: string): Record<string, unknown> | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : undefined;
}

/** sentence-transformers records the pooling the model was trained with. */
function poolingOf(dir: string): Pooling {
  const config = readJson(join(dir, '1_Pooling', 'config.json'));
  return config?.pooling_mode_cls_token === true ? 'cls' : 'mean';
}

/** Newer sentence-transformers models name their query prompt. */
function queryPromptOf(dir: string): string {
  const prompts = readJson(join(dir, 'config_sentence_transformers.json'))?.prompts as
    | Record<string, unknown>
    | undefined;
  return typeof prompts?.query === 'string' ? prompts.query : '';
}
