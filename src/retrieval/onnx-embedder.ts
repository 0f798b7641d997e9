import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { PASSAGE_BATCH, type Embedder } from './embedder.js';
import { slugKey } from './index-paths.js';

export type Pooling = 'mean' | 'cls';
/** Which weights of a model directory: onnx/model.onnx (fp32) or onnx/model_quantized.onnx (int8). */
export type OnnxDtype = 'fp32' | 'q8';
const WEIGHTS: Record<OnnxDtype, string> = { fp32: 'model.onnx', q8: 'model_quantized.onnx' };

export interface OnnxEmbedderOptions {
  /** Overrides the pooling read from the model's 1_Pooling/config.json (mean when that is absent). */
  pooling?: Pooling;
  /** Text put before each query, e.g. bge's "Represent this sentence for searching relevant passages: ". */
  queryPrefix?: string;
  /** The weights to run (default: q8 where onnx/model_quantized.onnx exists, else fp32). */
  dtype?: OnnxDtype;
  /** Tokens a text is cut to (default: max_seq_length of sentence_bert_config.json, as sentence-transformers). */
  maxTokens?: number;
  /** onnxruntime's intra-op threads (default: every core the process may use). */
  threads?: number;
}

export class ModelDirError extends Error {}

/** Texts per model run: as many as the index build hands over at once. */
const RUN_BATCH = PASSAGE_BATCH;

/**
 * The weights file of a model directory in transformers.js layout and its dtype (the one asked for, else q8 where
 * both exist: per-column int8 weights rank as well as fp32 on the held-out benchmarks at about half the CPU time);
 * ModelDirError naming what is missing otherwise.
 */
export function onnxWeights(modelDir: string, dtype?: OnnxDtype): { file: string; dtype: OnnxDtype } {
  const dir = resolve(modelDir);
  for (const file of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, file))) throw new ModelDirError(`${dir} is not a model directory: ${file} is missing`);
  }
  const found = (dtype ? [dtype] : (['q8', 'fp32'] as const)).find((d) => existsSync(join(dir, 'onnx', WEIGHTS[d])));
  if (!found) {
    const expected = dtype ? `onnx/${WEIGHTS[dtype]}` : 'onnx/model.onnx or onnx/model_quantized.onnx';
    throw new ModelDirError(`${dir} has no ONNX weights: expected ${expected}`);
  }
  return { file: join(dir, 'onnx', WEIGHTS[found]), dtype: found };
}

/**
 * A sentence encoder from a local Hugging Face model directory in transformers.js layout
 * (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx or onnx/model_quantized.onnx),
 * such as bge-large-en-v1.5. Remote models are switched off: nothing is downloaded.
 */
export async function loadOnnxEmbedder(modelDir: string, options: OnnxEmbedderOptions = {}): Promise<Embedder> {
  const dir = resolve(modelDir);
  const { file: model, dtype } = onnxWeights(dir, options.dtype);
  const pooling = options.pooling ?? poolingOf(dir);
  const queryPrefix = options.queryPrefix ?? queryPromptOf(dir);
  const maxTokens = options.maxTokens ?? maxTokensOf(dir);

  const { env, AutoModel, AutoTokenizer, mean_pooling } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dirname(dir);
  const tokenizer = await AutoTokenizer.from_pretrained(basename(dir));
  const encoder = await AutoModel.from_pretrained(basename(dir), {
    dtype,
    device: 'cpu',
    session_options: {
      intraOpNumThreads: options.threads ?? availableParallelism(),
      interOpNumThreads: 1,
      // Idle intra-op threads spin by default, burning a third more CPU per passage on cores that other processes
      // share (docs/retrieval.md, Speed and size); sleeping ones cost nothing and wake in microseconds.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    },
  });

  // The feature-extraction pipeline, with the length cap it does not take: texts padded to the longest in the batch,
  // cut at maxTokens, pooled over the attention mask, scaled to unit length.
  const run = async (texts: string[]) => {
    const inputs = tokenizer(texts, { padding: true, truncation: true, max_length: maxTokens });
    const { last_hidden_state: hidden } = await encoder(inputs);
    const pooled = pooling === 'cls' ? hidden.slice(null, 0) : mean_pooling(hidden, inputs.attention_mask);
    const output = pooled.normalize(2, -1);
    const [rows, dim] = output.dims as [number, number];
    const data = output.data as Float32Array;
    return Array.from({ length: rows }, (_, i) => data.slice(i * dim, (i + 1) * dim));
  };
  // A batch of queries in the order they came pads short ones to the longest: run them in groups of similar length.
  const embed = async (texts: string[]) => {
    const order = texts.map((_, i) => i).sort((a, b) => texts[b]!.length - texts[a]!.length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += RUN_BATCH) {
      const rows = order.slice(start, start + RUN_BATCH);
      (await run(rows.map((row) => texts[row]!))).forEach((v, i) => (vectors[rows[i]!] = v));
    }
    return vectors;
  };
  const [probe] = await embed(['probe']);
  const stat = statSync(model);
  return {
    // int8 vectors differ from fp32 ones: each keeps its own file.
    key: `onnx-${slugKey(basename(dir))}${dtype === 'q8' ? '-q8' : ''}`,
    signature: createHash('sha256')
      .update(
        JSON.stringify([
          readFileSync(join(dir, 'config.json'), 'utf8'),
          model,
          stat.size,
          stat.mtimeMs,
          pooling,
          queryPrefix,
          maxTokens,
        ]),
      )
      .digest('hex')
      .slice(0, 16),
    dim: probe!.length,
    embedQueries: (texts) => embed(queryPrefix ? texts.map((t) => queryPrefix + t) : texts),
    embedPassages: embed,
    close: async () => {
      await encoder.dispose();
    },
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

/** sentence-transformers cuts inputs at max_seq_length (256 for all-MiniLM-L6-v2), below the tokenizer's 512. */
function maxTokensOf(dir: string): number {
  const limit = readJson(join(dir, 'sentence_bert_config.json'))?.max_seq_length;
  return typeof limit === 'number' && limit > 0 ? limit : 512;
}

/** Newer sentence-transformers models name their query prompt. */
function queryPromptOf(dir: string): string {
  const prompts = readJson(join(dir, 'config_sentence_transformers.json'))?.prompts as
    | Record<string, unknown>
    | undefined;
  return typeof prompts?.query === 'string' ? prompts.query : '';
}
