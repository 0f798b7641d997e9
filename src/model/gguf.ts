/**
 * A GGUF v3 writer: enough of the format (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md) to write the
 * tiny test model — typed metadata, F32 tensors, aligned data. Little-endian throughout, as llama.cpp reads it.
 */

/** GGUF metadata value types, by their numbers in the format. */
const VALUE_TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;

/** ggml tensor types, by their numbers in ggml.h. */
const GGML_TYPE_F32 = 0;

export type GgufScalarType = 'uint32' | 'int32' | 'float32' | 'string';

export type GgufValue =
  | { type: 'uint32' | 'int32' | 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: GgufScalarType; value: readonly (number | string)[] };

export interface GgufTensor {
  name: string;
  /** ggml order: the first dimension is the one that varies fastest (a row's length). */
  dims: readonly number[];
  data: Float32Array;
}

export interface GgufFile {
  metadata: Record<string, GgufValue>;
  tensors: readonly GgufTensor[];
}

/** Tensor data starts, and each tensor begins, at a multiple of this (the format's default `general.alignment`). */
export const GGUF_ALIGNMENT = 32;

const align = (n: number): number => Math.ceil(n / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;

/** Encodes a whole GGUF file. Throws on a tensor whose data length does not match its dims. */
export function encodeGguf(file: GgufFile): Buffer {
  const out = new ByteWriter();
  out.bytes(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(file.tensors.length);
  const entries = Object.entries(file.metadata);
  out.u64(entries.length);
  for (const [key, value] of entries) {
    out.string(key);
    writeValue(out, value);
  }

  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of file.tensors) {
    const elements = tensor.dims.reduce((a, b) => a * b, 1);
    if (elements !== tensor.data.length)
      throw new Error(
        `tensor ${tensor.name}: dims ${tensor.dims.join('x')} need ${elements} values, got ${tensor.data.length}`,
      );
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offsets.push(offset);
    offset = align(offset + tensor.data.byteLength);
  }

  out.padTo(align(out.length));
  const dataStart = out.length;
  file.tensors.forEach((tensor, i) => {
    out.padTo(dataStart + (offsets[i] ?? 0));
    out.f32s(tensor.data);
  });
  out.padTo(dataStart + offset);
  return out.toBuffer();
}

function writeValue(out: ByteWriter, value: GgufValue): void {
  out.u32(VALUE_TYPE[value.type]);
  switch (value.type) {
    case 'uint32':
      return out.u32(value.value);
    case 'int32':
      return out.i32(value.value);
    case 'float32':
      return out.f32(value.value);
    case 'bool':
      return out.u8(value.value ? 1 : 0);
    case 'string':
      return out.string(value.value);
    case 'array':
      out.u32(VALUE_TYPE[value.itemType]);
      out.u64(value.value.length);
      for (const item of value.value) writeScalar(out, value.itemType, item);
  }
}

function writeScalar(out: ByteWriter, type: GgufScalarType, item: number | string): void {
  if (type === 'string') return out.string(String(item));
  if (typeof item !== 'number') throw new Error(`GGUF array of ${type} holds a non-number: ${JSON.stringify(item)}`);
  if (type === 'uint32') return out.u32(item);
  if (type === 'int32') return out.i32(item);
  out.f32(item);
}

/** A growable little-endian buffer. */
class ByteWriter {
  private buffer = Buffer.alloc(1 << 16);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    const next = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + n));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }

  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
  }

  u8(n: number): void {
    this.reserve(1);
    this.length = this.buffer.writeUInt8(n, this.length);
  }

  u32(n: number): void {
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(n, this.length);
  }

  i32(n: number): void {
    this.reserve(4);
    this.length = this.buffer.writeInt32LE(n, this.length);
  }

  u64(n: number): void {
    this.reserve(8);
    this.length = this.buffer.writeBigUInt64LE(BigInt(n), this.length);
  }

  f32(n: number): void {
    this.reserve(4);
    this.length = this.buffer.writeFloatLE(n, this.length);
  }

  f32s(values: Float32Array): void {
    this.bytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  /** GGUF strings: a u64 byte length, then UTF-8 bytes, no terminator. */
  string(s: string): void {
    const data = Buffer.from(s, 'utf8');
    this.u64(data.length);
    this.bytes(data);
  }

  padTo(target: number): void {
    if (target < this.length) throw new Error(`GGUF writer: cannot pad back to ${target} from ${this.length}`);
    this.reserve(target - this.length);
    this.buffer.fill(0, this.length, target);
    this.length = target;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}
