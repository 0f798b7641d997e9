import { writeFileSync } from 'node:fs';
import { encodeGguf, type GgufFile, type GgufTensor } from './gguf.js';

/**
 * The tiny test model: a llama-architecture GGUF with random weights and a byte-level SPM vocabulary, a few hundred
 * kilobytes, that llama.cpp loads like any other model. It writes nonsense, but under a JSON grammar it writes valid
 * JSON, which is all the tests and benchmarks of the Response layer need.
 */

export interface TinyModelOptions {
  seed?: number;
  embedding?: number;
  layers?: number;
  heads?: number;
  kvHeads?: number;
  feedForward?: number;
  contextLength?: number;
}

/**
 * Token ids: three special tokens, then SPM's word-boundary piece '▁' (the tokenizer writes every space as '▁'; without
 * a token for it, spaces would fall back to the bytes of U+2581 and never decode back to spaces), then the 256 bytes.
 */
const UNK = 0;
const BOS = 1;
const EOS = 2;
const SPACE = 3;
const FIRST_BYTE_TOKEN = 4;
const VOCAB_SIZE = FIRST_BYTE_TOKEN + 256;

/** llama.cpp's token types. */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

export function tinyModel(options: TinyModelOptions = {}): GgufFile {
  const {
    seed = 1,
    embedding = 64,
    layers = 2,
    heads = 4,
    kvHeads = 2,
    feedForward = 128,
    contextLength = 4096,
  } = options;
  if (embedding % heads !== 0 || heads % kvHeads !== 0)
    throw new Error(`tiny model: ${embedding} dims do not split into ${heads} heads of ${kvHeads} kv groups`);
  const headDim = embedding / heads;
  const random = mulberry32(seed);
  const uniform = (count: number, scale: number): Float32Array =>
    Float32Array.from({ length: count }, () => (random() * 2 - 1) * scale);
  const ones = (count: number): Float32Array => new Float32Array(count).fill(1);

  const tensors: GgufTensor[] = [];
  const add = (name: string, dims: number[], data: Float32Array): void => {
    tensors.push({ name, dims, data });
  };

  // Dimension 0 of every token's embedding is 1 and no layer writes to it, so the final hidden state always carries
  // a constant component; column 0 of the output matrix turns it into a per-token prior (see tokenPrior).
  const embeddings = uniform(embedding * VOCAB_SIZE, 0.15);
  for (let token = 0; token < VOCAB_SIZE; token++) embeddings[token * embedding] = 1;
  add('token_embd.weight', [embedding, VOCAB_SIZE], embeddings);

  for (let layer = 0; layer < layers; layer++) {
    const block = `blk.${layer}`;
    add(`${block}.attn_norm.weight`, [embedding], ones(embedding));
    add(`${block}.attn_q.weight`, [embedding, embedding], uniform(embedding * embedding, 0.2));
    add(`${block}.attn_k.weight`, [embedding, kvHeads * headDim], uniform(embedding * kvHeads * headDim, 0.2));
    add(`${block}.attn_v.weight`, [embedding, kvHeads * headDim], uniform(embedding * kvHeads * headDim, 0.2));
    add(
      `${block}.attn_output.weight`,
      [embedding, embedding],
      zeroRow0(uniform(embedding * embedding, 0.1), embedding),
    );
    add(`${block}.ffn_norm.weight`, [embedding], ones(embedding));
    add(`${block}.ffn_gate.weight`, [embedding, feedForward], uniform(embedding * feedForward, 0.2));
    add(`${block}.ffn_up.weight`, [embedding, feedForward], uniform(embedding * feedForward, 0.2));
    add(
      `${block}.ffn_down.weight`,
      [feedForward, embedding],
      zeroRow0(uniform(feedForward * embedding, 0.1), feedForward),
    );
  }

  add('output_norm.weight', [embedding], ones(embedding));
  const output = uniform(embedding * VOCAB_SIZE, 0.25);
  for (let token = 0; token < VOCAB_SIZE; token++) output[token * embedding] = tokenPrior(token) / 2;
  add('output.weight', [embedding, VOCAB_SIZE], output);

  const tokens = [
    '<unk>',
    '<s>',
    '</s>',
    '\u2581',
    ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`),
  ];
  const tokenTypes = tokens.map((_, id) =>
    id === UNK
      ? TOKEN_TYPE.unknown
      : id === SPACE
        ? TOKEN_TYPE.normal
        : id < FIRST_BYTE_TOKEN
          ? TOKEN_TYPE.control
          : TOKEN_TYPE.byte,
  );

  return {
    metadata: {
      'general.architecture': { type: 'string', value: 'llama' },
      'general.name': { type: 'string', value: `toolenv-tiny-s${seed}` },
      'general.file_type': { type: 'uint32', value: 0 },
      'general.alignment': { type: 'uint32', value: 32 },
      'llama.context_length': { type: 'uint32', value: contextLength },
      'llama.embedding_length': { type: 'uint32', value: embedding },
      'llama.block_count': { type: 'uint32', value: layers },
      'llama.feed_forward_length': { type: 'uint32', value: feedForward },
      'llama.attention.head_count': { type: 'uint32', value: heads },
      'llama.attention.head_count_kv': { type: 'uint32', value: kvHeads },
      'llama.attention.layer_norm_rms_epsilon': { type: 'float32', value: 1e-5 },
      'llama.rope.dimension_count': { type: 'uint32', value: headDim },
      'llama.rope.freq_base': { type: 'float32', value: 10000 },
      'llama.vocab_size': { type: 'uint32', value: VOCAB_SIZE },
      'tokenizer.ggml.model': { type: 'string', value: 'llama' },
      'tokenizer.ggml.pre': { type: 'string', value: 'default' },
      'tokenizer.ggml.tokens': { type: 'array', itemType: 'string', value: tokens },
      'tokenizer.ggml.scores': { type: 'array', itemType: 'float32', value: tokens.map(() => 0) },
      'tokenizer.ggml.token_type': { type: 'array', itemType: 'int32', value: tokenTypes },
      'tokenizer.ggml.bos_token_id': { type: 'uint32', value: BOS },
      'tokenizer.ggml.eos_token_id': { type: 'uint32', value: EOS },
      'tokenizer.ggml.unknown_token_id': { type: 'uint32', value: UNK },
      'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
      'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
      'tokenizer.ggml.add_space_prefix': { type: 'bool', value: false },
    },
    tensors,
  };
}

/** Writes the tiny model to `file`; returns its size in bytes. */
export function writeTinyModel(file: string, options: TinyModelOptions = {}): number {
  const data = encodeGguf(tinyModel(options));
  writeFileSync(file, data);
  return data.length;
}

/**
 * The model's unigram prior, in logits. Random weights alone make every byte about equally likely, so a string
 * would run for hundreds of bytes before a closing quote came up; favouring the bytes that close strings, objects
 * and arrays, and shunning whitespace, escapes and non-ASCII, keeps grammar-constrained JSON short.
 */
function tokenPrior(token: number): number {
  if (token === EOS) return 2;
  if (token === SPACE) return -3;
  if (token < FIRST_BYTE_TOKEN) return -10;
  const byte = token - FIRST_BYTE_TOKEN;
  const char = String.fromCharCode(byte);
  if (char === '"') return 4;
  if (char === '}' || char === ']') return 2.5;
  if (/[0-9]/.test(char)) return 1;
  if (/[A-Za-z]/.test(char)) return 0.5;
  if (char === ',' || char === ':') return -1;
  if (char === ' ') return -3;
  if (byte >= 0x21 && byte <= 0x7e && char !== '\\') return -2;
  return -8;
}

/** Zeroes output dimension 0 of a weight matrix stored row by row (rows of `rowLength` inputs). */
function zeroRow0(weights: Float32Array, rowLength: number): Float32Array {
  weights.fill(0, 0, rowLength);
  return weights;
}

/** A small seeded PRNG (mulberry32): the same seed writes the same model, byte for byte. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
