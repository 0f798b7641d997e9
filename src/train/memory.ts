import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shape of a Hugging Face causal LM that its memory depends on (config.json). */
export interface ModelShape {
  vocab: number;
  hidden: number;
  layers: number;
  heads: number;
  kvHeads: number;
  intermediate: number;
  tiedEmbeddings: boolean;
}

export interface RlMemoryPlan {
  model: ModelShape;
  group: number;
  /** Rollouts generated together (TRL's rollouts run in chunks of this many). */
  generationBatch: number;
  maxSeqLen: number;
  /** Adapters instead of every weight: no gradients or optimizer state for the base. */
  lora: boolean;
}

/** One part of the projection, the flag that shrinks it, and its bytes. */
export interface MemoryTerm {
  what: string;
  flag: string;
  bytes: number;
}

/** What a Python process with torch, the tokenizer and the trainer holds before the first tensor. */
const BASELINE_BYTES = 1.5 * 2 ** 30;
const FLOAT = 4;

export function readModelShape(dir: string): ModelShape | undefined {
  const file = join(dir, 'config.json');
  if (!existsSync(file)) return undefined;
  const c = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const n = (key: string): number | undefined => (typeof c[key] === 'number' ? (c[key] as number) : undefined);
  const [vocab, hidden, layers, heads] = [
    n('vocab_size'),
    n('hidden_size'),
    n('num_hidden_layers'),
    n('num_attention_heads'),
  ];
  if (!vocab || !hidden || !layers || !heads) return undefined;
  return {
    vocab,
    hidden,
    layers,
    heads,
    kvHeads: n('num_key_value_heads') ?? heads,
    intermediate: n('intermediate_size') ?? 4 * hidden,
    tiedEmbeddings: c.tie_word_embeddings !== false,
  };
}

export function parameterCount(m: ModelShape): number {
  const kvDim = (m.hidden / m.heads) * m.kvHeads;
  const block = 2 * m.hidden * m.hidden + 2 * m.hidden * kvDim + 3 * m.hidden * m.intermediate;
  return m.vocab * m.hidden * (m.tiedEmbeddings ? 1 : 2) + m.layers * block;
}

/**
 * The peak a GRPO run on TRL reaches on a CPU, term by term (float32): the weights with their gradients and Adam's
 * state; a chunk of rollouts' prefill, whose masked attention materializes L × L scores,
 * beside its KV cache; and one group's update, recomputing activations as GRPO does by default: one layer's scores,
 * the logits over the vocabulary with their log-softmax and gradient. Generation and the update take turns, so the
 * larger of the two counts. An estimate to refuse a run that cannot fit, not a measurement.
 */
export function rlMemoryTerms(plan: RlMemoryPlan): MemoryTerm[] {
  const { model: m, maxSeqLen: L } = plan;
  const params = parameterCount(m);
  const kvDim = (m.hidden / m.heads) * m.kvHeads;
  // Measured on this CPU with the tiny model: a masked prefill of 16 × 4,096 tokens added 1.6 GB, of 64 × 4,096
  // 6.1 GB: the mask and one layer's scores, about 1.5 × batch × L² floats.
  const scores = (batch: number) => 1.5 * batch * L * L * FLOAT;
  const generation = scores(plan.generationBatch) + plan.generationBatch * m.layers * 2 * kvDim * L * FLOAT;
  // The update recomputes activations (GRPO's gradient checkpointing): one layer's scores at a time, the logits with
  // their log-softmax and gradient, and each block's checkpointed input and output.
  const update = scores(plan.group) + plan.group * L * (3 * m.vocab + 2 * m.hidden * m.layers) * FLOAT;
  return [
    { what: 'Python, torch and the trainer', flag: '', bytes: BASELINE_BYTES },
    { what: 'weights, gradients and optimizer state', flag: '--lora', bytes: params * FLOAT * (plan.lora ? 1.1 : 4) },
    generation > update
      ? {
          what: `generating ${plan.generationBatch} rollouts at once`,
          flag: '--generation-batch or --max-seq-len',
          bytes: generation,
        }
      : { what: `the update over one group of ${plan.group}`, flag: '--group or --max-seq-len', bytes: update },
  ];
}

/** Why a run would not fit in `available` bytes, naming the flag to lower; undefined when it fits. */
export function memoryRefusal(terms: readonly MemoryTerm[], available: number): string | undefined {
  const total = terms.reduce((sum, t) => sum + t.bytes, 0);
  if (total <= available) return undefined;
  const largest = [...terms].filter((t) => t.flag).sort((a, b) => b.bytes - a.bytes)[0]!;
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  return (
    `this run would need about ${gib(total)} of memory and the machine has ${gib(available)}: most of it is ` +
    `${largest.what} (${gib(largest.bytes)}); lower ${largest.flag}`
  );
}
