import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { embedByLength } from '../../src/retrieval/build.js';
import { loadOnnxEmbedder, onnxWeights } from '../../src/retrieval/onnx-embedder.js';
import { vectorFile } from '../../src/retrieval/index-paths.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { loadUseEmbedder } from '../../src/retrieval/use-embedder.js';
import { tempDir } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from './fixture.js';
import { writeTinyModel } from './tiny-model.js';

function tinyModelDir(): string {
  const dir = join(tempDir('toolenv-model-'), 'tiny-bert');
  writeTinyModel(dir);
  return dir;
}

test('a local ONNX model runs through transformers.js: unit vectors, mean pooling over real tokens', async () => {
  const embedder = await loadOnnxEmbedder(tinyModelDir());
  try {
    assert.equal(embedder.dim, 7);
    assert.equal(embedder.key, 'onnx-tiny-bert');
    const [rain, removeDog, padded] = await embedder.embedQueries([
      'rain tomorrow',
      'delete the dog',
      'rain tomorrow in paris is it sunny',
    ]);
    const norm = (v: Float32Array) => Math.hypot(...v);
    for (const v of [rain!, removeDog!, padded!]) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    assert.ok(rain![0]! > 0.99, 'weather words point along the weather axis');
    assert.ok(
      Math.abs(removeDog![1]! - removeDog![2]!) < 1e-5 && removeDog![1]! > 0.6,
      'pet and remove axes share the mean',
    );
  } finally {
    await embedder.close();
  }
});

test(
  'dense search with a local model ranks by meaning, ' + 'builds its vector file once, and hybrid fuses it with BM25',
  async () => {
    const library = writeRetrievalLibrary();
    const model = tinyModelDir();
    const search = ToolSearch.open(library, { embedModel: model });
    try {
      // "rain" and "dog" appear in no tool text: only the model knows they mean weather and pet.
      const [rain, dog] = await search.search(['will it rain tomorrow', 'remove my dog'], { retriever: 'dense', k: 2 });
      assert.equal(rain![0]!.id, 'weather_forecast');
      assert.equal(dog![0]!.id, 'petstore_test__deletePet');
      assert.ok(existsSync(vectorFile(library, 'onnx-tiny-bert')));

      const [hybrid] = await search.search(['delete pet'], { retriever: 'hybrid', k: 1 });
      assert.equal(hybrid![0]!.id, 'petstore_test__deletePet');
    } finally {
      await search.close();
    }
    const reopened = ToolSearch.open(library, { embedModel: model, autoBuild: false });
    const [again] = await reopened.search(['will it rain tomorrow'], { retriever: 'dense', k: 1 });
    assert.equal(again![0]!.id, 'weather_forecast');
    await reopened.close();
  },
);

test('passages are embedded in batches of similar length, long and short mixed, and come back in order', async () => {
  const embedder = await loadOnnxEmbedder(tinyModelDir());
  try {
    const passages = [
      'rain',
      'delete the dog and the cat and the puppy for me',
      'list all pets',
      'the weather forecast for paris tomorrow',
      'add a new pet',
      'find a dog by id',
      'remove my cat',
      'is it sunny',
    ];
    const progress: number[] = [];
    const embedded: string[][] = [];
    const watched = {
      ...embedder,
      embedPassages: (texts: string[]) => {
        embedded.push(texts);
        return embedder.embedPassages(texts);
      },
    };
    const data = await embedByLength(passages, watched, (done) => progress.push(done), 2);
    const direct = await embedder.embedPassages(passages);
    passages.forEach((_, i) => assert.deepEqual(data.subarray(i * 7, (i + 1) * 7), direct[i]));
    assert.deepEqual(progress, [0, 2, 4, 6, 8]);
    // Sorted by length, in pairs; the longest pair first, then the shortest, not the next longest.
    assert.equal(embedded.length, 4);
    assert.deepEqual(embedded[0], [passages[1], passages[3]]);
    assert.deepEqual(embedded[1], [passages[7], passages[0]]);
  } finally {
    await embedder.close();
  }
});

test('texts are cut at maxTokens; int8 weights are the default where present, with vectors of their own', async () => {
  const dir = tinyModelDir();
  // Cut at 4 tokens, both are [CLS] rain tomorrow remove: what follows does not move the vector.
  const texts = ['rain tomorrow remove my dog', 'rain tomorrow remove the forecast'];
  for (const [maxTokens, same] of [
    [4, true],
    [512, false],
  ] as const) {
    const embedder = await loadOnnxEmbedder(dir, { maxTokens });
    try {
      const [a, b] = await embedder.embedQueries(texts);
      assert.equal(
        a!.every((x, i) => x === b![i]),
        same,
        `maxTokens ${maxTokens}`,
      );
    } finally {
      await embedder.close();
    }
  }
  assert.equal(onnxWeights(dir).dtype, 'fp32');
  assert.throws(() => onnxWeights(dir, 'q8'), /expected onnx\/model_quantized.onnx/);
  copyFileSync(join(dir, 'onnx', 'model.onnx'), join(dir, 'onnx', 'model_quantized.onnx'));
  // With both, int8 is the default (as good on the held-out benchmarks at half the CPU); fp32 when asked for.
  assert.equal(onnxWeights(dir).dtype, 'q8');
  const q8 = await loadOnnxEmbedder(dir);
  assert.equal(q8.key, 'onnx-tiny-bert-q8');
  await q8.close();
  assert.equal(onnxWeights(dir, 'fp32').file, join(dir, 'onnx', 'model.onnx'));
  rmSync(join(dir, 'onnx', 'model.onnx'));
  assert.deepEqual(onnxWeights(dir), { file: join(dir, 'onnx', 'model_quantized.onnx'), dtype: 'q8' });
});

test('a search that names no retriever is hybrid once the encoder vectors are built, bm25 before and without', async () => {
  const library = writeRetrievalLibrary();
  const model = tinyModelDir();
  const plain = ToolSearch.open(library);
  assert.equal(await plain.defaultRetriever(), 'bm25');
  await plain.close();
  const before = ToolSearch.open(library, { embedModel: model, autoBuild: false });
  assert.equal(await before.defaultRetriever(), 'bm25');
  await before.close();

  const builder = ToolSearch.open(library, { embedModel: model });
  await builder.index('dense');
  await builder.close();
  const after = ToolSearch.open(library, { embedModel: model, autoBuild: false });
  try {
    assert.equal(await after.defaultRetriever(), 'hybrid');
    const queries = ['remove my dog', 'will it rain tomorrow'];
    const unnamed = await after.search(queries, { k: 3 });
    assert.deepEqual(unnamed, await after.search(queries, { k: 3, retriever: 'hybrid' }));
    assert.equal(unnamed[0]![0]!.id, 'petstore_test__deletePet');
  } finally {
    await after.close();
  }
});

test('a model directory without weights, or no model at all, is a clear error', async () => {
  const dir = tinyModelDir();
  rmSync(join(dir, 'onnx'), { recursive: true });
  await assert.rejects(
    loadOnnxEmbedder(dir),
    /has no ONNX weights: expected onnx\/model.onnx or onnx\/model_quantized.onnx/,
  );
  const empty = join(tempDir(), 'empty');
  mkdirSync(empty);
  await assert.rejects(loadOnnxEmbedder(empty), /is not a model directory: config.json is missing/);
  const search = ToolSearch.open(writeRetrievalLibrary());
  await assert.rejects(
    search.search(['x'], { retriever: 'dense' }),
    /dense retriever needs a local ONNX model directory \(--embed-model DIR\)/,
  );
});

test('the shipped Universal Sentence Encoder loads offline and finds tools by meaning', async () => {
  const embedder = await loadUseEmbedder();
  try {
    assert.equal(embedder.dim, 512);
    const [weather, pets] = await embedder.embedQueries(['is it going to be sunny this weekend', 'adopt a puppy']);
    const passages = await embedder.embedPassages([
      'Get the weather forecast for a city.',
      'Add a pet to the pet store.',
    ]);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    assert.ok(dot(weather!, passages[0]!) > dot(weather!, passages[1]!));
    assert.ok(dot(pets!, passages[1]!) > dot(pets!, passages[0]!));
  } finally {
    await embedder.close();
  }
});
