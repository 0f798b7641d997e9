import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import {
  memoryRefusal,
  parameterCount,
  readModelShape,
  rlMemoryTerms,
  type ModelShape,
} from '../../src/train/memory.js';
import { tempDir } from '../fixtures/tools.js';

// `model tiny-hf`'s shape (Qwen2: 2 blocks of 128, 4 query and 2 key-value heads, a 2,048-token vocabulary).
const tiny: ModelShape = {
  vocab: 2048,
  hidden: 128,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  intermediate: 256,
  tiedEmbeddings: true,
};
const GIB = 2 ** 30;
const total = (terms: { bytes: number }[]) => terms.reduce((sum, t) => sum + t.bytes, 0);

test("the tiny model's GRPO defaults fit in 4 GiB; the paper's batch generated at once would not", () => {
  const defaults = rlMemoryTerms({ model: tiny, group: 8, generationBatch: 16, maxSeqLen: 4096, lora: false });
  assert.ok(total(defaults) < 4 * GIB, `${(total(defaults) / GIB).toFixed(2)} GiB`);
  const allAtOnce = rlMemoryTerms({ model: tiny, group: 8, generationBatch: 512, maxSeqLen: 4096, lora: false });
  const refusal = memoryRefusal(allAtOnce, 24 * GIB);
  assert.match(
    refusal!,
    /^this run would need about \d+\.\d GiB of memory and the machine has 24\.0 GiB: most of it is generating 512 rollouts at once .*lower --generation-batch or --max-seq-len$/,
  );
  assert.equal(memoryRefusal(defaults, 24 * GIB), undefined);
});

test('adapters leave out the gradients and optimizer state of the base', () => {
  const shape: ModelShape = {
    ...tiny,
    vocab: 49152,
    hidden: 576,
    layers: 30,
    heads: 9,
    kvHeads: 3,
    intermediate: 1536,
  };
  assert.ok(
    Math.abs(parameterCount(shape) - 134.5e6) / 134.5e6 < 0.05,
    `${parameterCount(shape)} parameters (SmolLM2-135M)`,
  );
  const weights = (lora: boolean) =>
    rlMemoryTerms({ model: shape, group: 4, generationBatch: 8, maxSeqLen: 2048, lora })[1]!.bytes;
  assert.ok(weights(true) < weights(false) / 3);
});

test('readModelShape reads config.json, and nothing from a directory without one', () => {
  const dir = tempDir();
  assert.equal(readModelShape(dir), undefined);
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      vocab_size: 2048,
      hidden_size: 128,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      intermediate_size: 256,
    }),
  );
  assert.deepEqual(readModelShape(dir), tiny);
});

test('train refuses a run that cannot fit before it loads anything: one line, exit 2, the flag to lower', () => {
  const model = tempDir();
  writeFileSync(
    join(model, 'config.json'),
    JSON.stringify({ vocab_size: 2048, hidden_size: 128, num_hidden_layers: 2, num_attention_heads: 4 }),
  );
  const run = spawnSync(
    process.execPath,
    [
      join(packageRoot, 'bin', 'toolenv'),
      'train',
      '--stage',
      'rl',
      '--model',
      model,
      '--max-seq-len',
      '65536',
      '--generation-batch',
      '64',
      '--library',
      tempDir(),
      '--out',
      join(tempDir(), 'run'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 2, run.stderr);
  assert.match(
    run.stderr,
    /^toolenv: this run would need about [\d.]+ GiB of memory .* lower --generation-batch or --max-seq-len\n$/,
  );
});
