/**
 * The bytes of a one-node ONNX model, scores = vectors × queries (MatMul of [n, dim] by [dim, b] into [n, b]), so
 * that onnxruntime's matrix kernels score a whole vector file instead of a JavaScript loop (a third of the CPU).
 * Written here in the ONNX protobuf wire format: the graph is four fields deep and needs no ONNX library.
 */
export const MATMUL_INPUTS = { vectors: 'vectors', queries: 'queries' } as const;
export const MATMUL_OUTPUT = 'scores';

const FLOAT = 1;
const OPSET = 13;
const IR_VERSION = 7;

function varint(value: number): number[] {
  const out: number[] = [];
  while (value > 127) {
    out.push((value & 127) | 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

const message = (field: number, body: number[]) => [...varint((field << 3) | 2), ...varint(body.length), ...body];
const text = (field: number, value: string) => message(field, [...new TextEncoder().encode(value)]);
const integer = (field: number, value: number) => [...varint(field << 3), ...varint(value)];

/** A float tensor's ValueInfoProto; a string dimension is symbolic (dim_param), a number fixed (dim_value). */
function floatTensor(name: string, dims: (string | number)[]) {
  const shape = dims.flatMap((d) => message(1, typeof d === 'number' ? integer(1, d) : text(2, d)));
  return [...text(1, name), ...message(2, message(1, [...integer(1, FLOAT), ...message(2, shape)]))];
}

export function matmulModel(dim: number): Uint8Array {
  const node = [
    ...text(1, MATMUL_INPUTS.vectors),
    ...text(1, MATMUL_INPUTS.queries),
    ...text(2, MATMUL_OUTPUT),
    ...text(4, 'MatMul'),
  ];
  const graph = [
    ...message(1, node),
    ...text(2, 'score'),
    ...message(11, floatTensor(MATMUL_INPUTS.vectors, ['n', dim])),
    ...message(11, floatTensor(MATMUL_INPUTS.queries, [dim, 'b'])),
    ...message(12, floatTensor(MATMUL_OUTPUT, ['n', 'b'])),
  ];
  const opset = [...text(1, ''), ...integer(2, OPSET)];
  return new Uint8Array([...integer(1, IR_VERSION), ...message(8, opset), ...message(7, graph)]);
}
