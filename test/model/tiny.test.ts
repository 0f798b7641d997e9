import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readGgufFileInfo } from 'node-llama-cpp';
import { encodeGguf, GGUF_ALIGNMENT } from '../../src/model/gguf.js';
import { tinyModel, writeTinyModel } from '../../src/model/tiny.js';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

test(
  'the tiny model is a GGUF v3 file that node-llama-cpp’s reader parses: ' +
    'llama metadata, byte vocabulary, every tensor',
  async () => {
    const file = join(tempDir('toolenv-tiny-'), 'tiny.gguf');
    const bytes = writeTinyModel(file, { seed: 5 });
    const data = readFileSync(file);
    assert.equal(data.length, bytes);
    assert.ok(bytes < 1024 * 1024, `a tiny model, got ${bytes} bytes`);
    assert.equal(data.subarray(0, 4).toString('ascii'), 'GGUF');
    assert.equal(data.readUInt32LE(4), 3);

    const info = await readGgufFileInfo(file);
    const metadata = info.metadata as unknown as {
      general: { architecture: string; name: string; alignment: number };
      llama: {
        block_count: number;
        embedding_length: number;
        attention: { head_count: number; head_count_kv: number };
      };
      tokenizer: {
        ggml: { model: string; tokens: string[]; token_type: number[]; bos_token_id: number; eos_token_id: number };
      };
    };
    assert.equal(metadata.general.architecture, 'llama');
    assert.equal(metadata.general.name, 'toolenv-tiny-s5');
    assert.equal(metadata.general.alignment, GGUF_ALIGNMENT);
    assert.equal(metadata.llama.block_count, 2);
    assert.equal(metadata.tokenizer.ggml.model, 'llama');
    const tokens = metadata.tokenizer.ggml.tokens;
    assert.equal(tokens.length, 260);
    for (let byte = 0; byte < 256; byte++)
      assert.ok(tokens.includes(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`), `byte token ${byte}`);
    assert.equal(tokens[metadata.tokenizer.ggml.eos_token_id], '</s>');
    assert.equal(tokens[metadata.tokenizer.ggml.bos_token_id], '<s>');

    const names = (info.fullTensorInfo ?? []).map((t) => t.name);
    assert.equal(names.length, 2 + 9 * 2 + 1);
    for (const name of [
      'token_embd.weight',
      'output.weight',
      'output_norm.weight',
      'blk.1.attn_q.weight',
      'blk.1.ffn_down.weight',
    ])
      assert.ok(names.includes(name), name);
    const embedding = info.fullTensorInfo!.find((t) => t.name === 'token_embd.weight')!;
    assert.deepEqual(embedding.dimensions.map(Number), [64, 260]);
    for (const tensor of info.fullTensorInfo!)
      assert.equal(Number(tensor.offset) % GGUF_ALIGNMENT, 0, `${tensor.name} is aligned`);
  },
);

test('the same seed writes the same bytes; another seed other weights', () => {
  const a = encodeGguf(tinyModel({ seed: 7 }));
  assert.deepEqual(encodeGguf(tinyModel({ seed: 7 })), a);
  const b = encodeGguf(tinyModel({ seed: 8 }));
  assert.equal(b.length, a.length);
  assert.notDeepEqual(b, a);
});

test('the writer refuses a tensor whose data does not fill its dims', () => {
  assert.throws(
    () => encodeGguf({ metadata: {}, tensors: [{ name: 't', dims: [2, 3], data: new Float32Array(5) }] }),
    /t: dims 2x3 need 6 values, got 5/,
  );
});

test('`toolenv model tiny --out FILE --seed N --json` writes that model and says so on its last line', () => {
  const dir = tempDir('toolenv-tiny-cli-');
  const file = join(dir, 'm.gguf');
  const run = spawnSync(process.execPath, [BIN, 'model', 'tiny', '--out', file, '--seed', '3', '--json'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const summary = JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!) as { file: string; bytes: number; seed: number };
  assert.deepEqual(summary, { file, bytes: readFileSync(file).length, seed: 3 });
  assert.deepEqual(readFileSync(file), encodeGguf(tinyModel({ seed: 3 })));

  const bad = spawnSync(process.execPath, [BIN, 'model', 'tiny', '--out', file, '--seed', 'x'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^toolenv: --seed must be an integer/);
  const nowhere = spawnSync(process.execPath, [BIN, 'model', 'tiny', '--out', join(dir, 'missing', 'dir', 'm.gguf')], {
    encoding: 'utf8',
  });
  assert.equal(nowhere.status, 2);
  assert.match(nowhere.stderr, /^toolenv: cannot write .*ENOENT/);
  const help = spawnSync(process.execPath, [BIN, 'model', 'tiny', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--out <file>/);
});
