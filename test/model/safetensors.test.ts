import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { safetensorsParameters } from '../../src/model/safetensors.js';

/**
 * A safetensors file as the format lays it out: the header's length (u64, little-endian), the JSON header, the data.
 */
function writeSafetensors(file: string, shapes: Record<string, number[]>): void {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(file, Buffer.concat([length, json, Buffer.alloc(offset)]));
}

test('parameters are counted from the headers of every shard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolenv-st-'));
  writeSafetensors(join(dir, 'model-00001-of-00002.safetensors'), { 'embed.weight': [10, 4], 'norm.weight': [4] });
  writeSafetensors(join(dir, 'model-00002-of-00002.safetensors'), { 'proj.weight': [4, 4], scalar: [] });
  assert.equal(safetensorsParameters(dir), 40 + 4 + 16 + 1);
});

test('a directory without weights is refused, naming what it lacks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolenv-st-'));
  assert.throws(() => safetensorsParameters(dir), /holds no \.safetensors file/);
  assert.throws(() => safetensorsParameters(join(dir, 'absent')), /ENOENT/);
});
