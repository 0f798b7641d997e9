import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * Writes a tiny BERT-shaped feature-extraction model in transformers.js layout: a WordPiece tokenizer and
 * an ONNX graph that looks token ids up in an embedding table and zeroes padding (Gather, Cast, Unsqueeze,
 * Mul). Each topic word gets its own axis, so mean-pooled sentences about one topic point the same way.
 */
export const TOPICS: Record<string, string[]> = {
  weather: ['weather', 'forecast', 'rain', 'temperature', 'climate', 'sunny', 'tomorrow'],
  pet: ['pet', 'pets', 'dog', 'cat', 'animal', 'puppy'],
  remove: ['delete', 'remove', 'erase', 'drop'],
  add: ['add', 'create', 'new', 'register'],
  list: ['list', 'all', 'every', 'browse'],
  lookup: ['find', 'get', 'fetch', 'id', 'identifier'],
};
const FILLER = [
  'a',
  'the',
  'for',
  'of',
  'in',
  'city',
  'next',
  'days',
  'by',
  'paris',
  'me',
  'show',
  'an',
  'my',
  'to',
  'is',
  'it',
  'will',
];
const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

export function writeTinyModel(dir: string): { dim: number; vocab: string[] } {
  const topics = Object.keys(TOPICS);
  const dim = topics.length + 1;
  const vocab = [...SPECIAL, ...topics.flatMap((t) => TOPICS[t]!), ...FILLER];
  const table = new Float32Array(vocab.length * dim);
  vocab.forEach((word, row) => {
    const topic = topics.findIndex((t) => TOPICS[t]!.includes(word));
    // Filler and special tokens share one weak "noise" axis, so they barely move a sentence's direction.
    table[row * dim + (topic >= 0 ? topic : dim - 1)] = topic >= 0 ? 1 : 0.05;
  });

  const tensorType = (elemType: number, shape: (string | number)[]) => ({
    tensorType: {
      elemType,
      shape: { dim: shape.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
    },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'toolenv-test',
    opsetImport: [{ domain: '', version: 14 }],
    graph: {
      name: 'tiny-bert',
      input: [
        { name: 'input_ids', type: tensorType(onnx.TensorProto.DataType.INT64, ['batch', 'sequence']) },
        { name: 'attention_mask', type: tensorType(onnx.TensorProto.DataType.INT64, ['batch', 'sequence']) },
      ],
      output: [
        { name: 'last_hidden_state', type: tensorType(onnx.TensorProto.DataType.FLOAT, ['batch', 'sequence', dim]) },
      ],
      initializer: [
        {
          name: 'word_embeddings',
          dims: [vocab.length, dim],
          dataType: onnx.TensorProto.DataType.FLOAT,
          rawData: new Uint8Array(table.buffer),
        },
        { name: 'unsqueeze_axes', dims: [1], dataType: onnx.TensorProto.DataType.INT64, int64Data: [2] },
      ],
      node: [
        {
          opType: 'Gather',
          input: ['word_embeddings', 'input_ids'],
          output: ['embedded'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
        {
          opType: 'Cast',
          input: ['attention_mask'],
          output: ['mask_float'],
          attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: onnx.TensorProto.DataType.FLOAT }],
        },
        { opType: 'Unsqueeze', input: ['mask_float', 'unsqueeze_axes'], output: ['mask_3d'] },
        { opType: 'Mul', input: ['embedded', 'mask_3d'], output: ['last_hidden_state'] },
      ],
    },
  });

  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dim,
      vocab_size: vocab.length,
      num_hidden_layers: 1,
      num_attention_heads: 1,
      max_position_embeddings: 128,
      type_vocab_size: 2,
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      model_max_length: 128,
      do_lower_case: true,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  const id = (token: string) => vocab.indexOf(token);
  const special = (token: string) => ({ id: token, type_id: 0 });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL.map((content) => ({
        id: id(content),
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: special('[CLS]') },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: special('[SEP]') },
        ],
        pair: [
          { SpecialToken: special('[CLS]') },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: special('[SEP]') },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab.map((w, i) => [w, i])),
      },
    }),
  );
  return { dim, vocab };
}
