import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LibraryStore } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import { packageRoot } from '../../src/paths.js';
import { startServer } from '../../src/server/serve.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { benchModel } from '../../src/simulator/llama/bench.js';
import { createLlamaResponder } from '../../src/simulator/llama/responder.js';
import { createModelResponder, type GenerationRequest } from '../../src/simulator/model-responder.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';
import { addPet, assertSatisfies, getPet, objectCalls, orderTool, TEST_MODEL, tinyModelFile } from './llama-fixture.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const tools: Tool[] = [...petstoreTools, orderTool];
const responder = createLlamaResponder({ ...TEST_MODEL, model: tinyModelFile() });
after(() => responder.engine.close());

function simulatorWith(responders: Parameters<typeof createSimulator>[0]['responders'], cache?: ResponseCache) {
  const dir = writeFixtureLibrary(tools, [petstoreApi]);
  const store = LibraryStore.open(dir);
  after(() => store.close());
  return createSimulator({ store, cache, responders, errorRate: 0, seed: 3 });
}

test('the tiny GGUF loads on the CPU with parallel sequences, and its tokenizer is byte-level', async () => {
  const info = await responder.engine.load();
  assert.equal(info.gpu, false);
  assert.equal(info.parallel, 2);
  assert.equal(info.contextSize, 2048);
  assert.equal(info.trainContextSize, 4096);
  assert.ok(info.loadMs > 0);
  assert.equal(responder.engine.countTokens('some test text here'), 19);
  assert.equal(responder.engine.countTokens('{"a": "héllo"}'), Buffer.byteLength('{"a": "héllo"}'));
});

test('tools whose response schema is an object get bodies from the model that satisfy the schema', async () => {
  const before = { ...responder.stats };
  const answers = await Promise.all(objectCalls.map(([tool, args]) => responder.respond(tool, args, { seed: 1 })));
  answers.forEach((answer, i) => {
    const [tool] = objectCalls[i]!;
    assert.ok(answer, `${tool.id} answered`);
    assert.equal(answer.status, tool.response_status ?? 200);
    assert.equal(typeof answer.body, 'object');
    assertSatisfies(tool.response_schema, answer.body, tool.id);
  });
  assert.equal(responder.stats.answered - before.answered, 3);
  assert.ok(responder.stats.completionTokens > before.completionTokens);
  assert.ok(responder.stats.promptTokens > before.promptTokens);
});

test('a 204 operation is left to the synthesizer', async () => {
  const deletePet = petstoreTools.find((t) => t.response_status === 204)!;
  assert.equal(await responder.respond(deletePet, { petId: 1 }, { seed: 0 }), undefined);
});

test('through the pipeline a model answer is written back: source model, then cache on repeat', async () => {
  const cache = ResponseCache.open(join(tempDir('toolenv-llama-cache-'), 'responses.db'));
  after(() => cache.close());
  const simulator = simulatorWith([responder, synthResponder], cache);
  const first = await simulator.call(addPet.id, { name: 'Milo' });
  assert.equal(first.source, 'model');
  assert.equal(first.status, 201);
  assertSatisfies(addPet.response_schema, first.body, addPet.id);
  const again = await simulator.call(addPet.id, { name: 'Milo' });
  assert.equal(again.source, 'cache');
  assert.deepEqual(again.body, first.body);
  assert.equal(cache.get(addPet.id, { name: 'Milo' })?.source, 'model');
});

test('answers cached for the tool are shown to the model as few-shot examples', async () => {
  const cache = ResponseCache.open(join(tempDir('toolenv-llama-fewshot-'), 'responses.db'));
  after(() => cache.close());
  cache.put(getPet.id, { petId: 5 }, { status: 200, body: { id: 5, name: 'Cached-Cat' }, source: 'model' });
  cache.put(getPet.id, { petId: 6 }, { status: 404, body: { title: 'Not Found' }, source: 'stabletoolbench' });
  const requests: GenerationRequest[] = [];
  const engine = responder.engine;
  const recording = createModelResponder({
    ...TEST_MODEL,
    fewShot: cache,
    generator: {
      label: engine.label,
      ready: () => engine.ready(),
      countTokens: (t) => engine.countTokens(t),
      generate: (r) => {
        requests.push(r);
        return engine.generate(r);
      },
    },
  });
  const answer = await recording.respond(getPet, { petId: 9 }, { seed: 0 });
  assert.ok(answer);
  const user = requests[0]!.messages.find((m) => m.role === 'user')!.content;
  assert.ok(
    user.includes('Example call arguments: {"petId":5}\nExample response body: {"id":5,"name":"Cached-Cat"}'),
    user,
  );
  assert.ok(!user.includes('Not Found'), 'error answers are not examples');
  assert.ok(user.includes('{"id":7,"name":"Rex","status":"sold"}'), 'the spec example follows the cached one');
  assert.ok(user.indexOf('Cached-Cat') < user.indexOf('Call arguments: {"petId":9}'));
});

test('a model call past its deadline falls back to the synthesizer', async () => {
  const hasty = createLlamaResponder({ ...TEST_MODEL, model: tinyModelFile(), timeoutMs: 1 });
  after(() => hasty.engine.close());
  await hasty.engine.load();
  const simulator = simulatorWith([hasty, synthResponder]);
  const result = await simulator.call(getPet.id, { petId: 1 });
  assert.equal(result.source, 'synth');
  assert.equal(result.status, 200);
  assert.equal(hasty.stats.timeouts, 1);
  assert.equal(hasty.stats.fallbacks, 1);
  assert.equal(hasty.stats.answered, 0);
});

test('a prompt that leaves no room for the answer in the context falls back instead of being cut', async () => {
  const cramped = createLlamaResponder({ ...TEST_MODEL, model: tinyModelFile(), contextSize: 512 });
  after(() => cramped.engine.close());
  assert.equal(await cramped.respond(orderTool, { order_id: 'C-3' }, { seed: 0 }), undefined);
  assert.match(
    cramped.stats.lastError ?? '',
    /the prompt takes \d+ tokens; with 200 for the answer it exceeds the context of 512/,
  );
  assert.equal(cramped.stats.errors, 1);
});

test('a corrupt model file falls back to the synthesizer: no 5xx, the load error is kept and counted', async () => {
  const dir = tempDir('toolenv-llama-corrupt-');
  const corrupt = join(dir, 'corrupt.gguf');
  // A download cut short: the header and metadata are intact, half the tensor data is missing.
  const whole = readFileSync(tinyModelFile());
  writeFileSync(corrupt, whole.subarray(0, whole.length >> 1));
  const logs: string[] = [];
  const broken = createLlamaResponder({ ...TEST_MODEL, model: corrupt, log: (line) => logs.push(line) });
  const server = await startServer({
    library: writeFixtureLibrary(tools, [petstoreApi]),
    responders: [broken, synthResponder],
    errorRate: 0,
    port: 0,
    metrics: [broken],
  });
  after(() => server.close());
  const response = await fetch(`${server.url}/v1/tools/${addPet.id}/call`, {
    method: 'POST',
    body: JSON.stringify({ arguments: { name: 'Rex' } }),
  });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('x-toolenv-source'), 'synth');
  assert.match(
    broken.engine.loadError?.message ?? '',
    /cannot load model .*corrupt\.gguf: .*corrupted or incomplete/,
    'the error says why',
  );
  assert.match(logs.join('\n'), /llama\.cpp: .*corrupted or incomplete/, 'llama.cpp says why');
  assert.equal(broken.stats.errors, 1);
  assert.equal(broken.stats.fallbacks, 1);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /^toolenv_model_errors_total 1$/m);
  assert.match(metrics, /^toolenv_model_fallbacks_total 1$/m);
});

test('a full model queue answers 503 with Retry-After, and the call goes through once a slot frees', async () => {
  const narrow = createLlamaResponder({ ...TEST_MODEL, model: tinyModelFile(), parallel: 1, maxWaiting: 0 });
  after(() => narrow.engine.close());
  await narrow.engine.load();
  const server = await startServer({
    library: writeFixtureLibrary(tools, [petstoreApi]),
    responders: [narrow, synthResponder],
    errorRate: 0,
    port: 0,
  });
  after(() => server.close());

  let release!: () => void;
  const occupied = narrow.engine.queue.run(() => new Promise<void>((resolve) => (release = resolve)));
  const call = () =>
    fetch(`${server.url}/v1/tools/${getPet.id}/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { petId: 77 } }),
    });
  const busy = await call();
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get('content-type'), 'application/problem+json');
  assert.match(busy.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  const problem = (await busy.json()) as { title: string; status: number; detail: string };
  assert.equal(problem.title, 'Simulator busy');
  assert.equal(problem.status, 503);
  assert.match(problem.detail, /busy/);
  assert.equal(narrow.stats.busy, 1);
  assert.equal(server.simulator.cache, undefined);

  release();
  await occupied;
  const ok = await call();
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('x-toolenv-source'), 'model');
  assertSatisfies(getPet.response_schema, await ok.json(), getPet.id);
});

test('`serve` with the embedded defaults never imports node-llama-cpp', async () => {
  const hook =
    "export async function resolve(specifier, context, next) { if (specifier === 'node-llama-cpp') throw new " +
    "Error('node-llama-cpp was imported'); return next(specifier, context); }";
  const register =
    "import { register } from 'node:module'; " +
    `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const library = writeFixtureLibrary(tools, [petstoreApi]);
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      BIN,
      'serve',
      '--library',
      library,
      '--cache-mode',
      'off',
      '--port',
      '0',
      '--error-rate',
      '0',
      '--json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  after(() => child.kill());
  const url = await firstJsonLine(child);
  const response = await fetch(`${url}/v1/tools/${addPet.id}/call`, {
    method: 'POST',
    body: JSON.stringify({ arguments: { name: 'Rex' } }),
  });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('x-toolenv-source'), 'synth');
  assert.equal(
    (await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' })).status,
    404,
    'no model, no chat route',
  );
  assert.equal(child.exitCode, null, 'still serving');
});

test(
  '`serve --responder llama --model FILE` answers from the model, counts it on /metrics and serves ' +
    '/v1/chat/completions',
  async () => {
    const library = writeFixtureLibrary(tools, [petstoreApi]);
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--library',
        library,
        '--cache-mode',
        'off',
        '--port',
        '0',
        '--error-rate',
        '0',
        '--json',
        '--responder',
        'llama',
        '--model',
        tinyModelFile(),
        '--gpu',
        'cpu',
        '--ctx',
        '2048',
        '--parallel',
        '1',
        '--max-tokens',
        '200',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    after(() => child.kill());
    const url = await firstJsonLine(child);
    const response = await fetch(`${url}/v1/tools/${orderTool.id}/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { order_id: 'B-2' } }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-toolenv-source'), 'model');
    assertSatisfies(orderTool.response_schema, await response.json(), orderTool.id);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /^toolenv_model_answered_total 1$/m);
    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 50,
        response_format: { type: 'json_object' },
      }),
    });
    assert.equal(chat.status, 200);
    const completion = (await chat.json()) as { choices: { message: { content: string } }[] };
    assert.equal(typeof completion.choices[0]!.message.content, 'string');
  },
);

test('`call --responder llama` answers one call from the model', () => {
  const library = writeFixtureLibrary(tools, [petstoreApi]);
  const args = [
    'call',
    getPet.id,
    '--library',
    library,
    '--args',
    '{"petId":3}',
    '--cache-mode',
    'off',
    '--error-rate',
    '0',
    '--json',
  ];
  const run = spawnSync(
    process.execPath,
    [
      BIN,
      ...args,
      '--responder',
      'llama',
      '--model',
      tinyModelFile(),
      '--gpu',
      'cpu',
      '--ctx',
      '2048',
      '--max-tokens',
      '200',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!) as {
    status: number;
    source: string;
    body: unknown;
  };
  assert.equal(result.source, 'model');
  assert.equal(result.status, 200);
  assertSatisfies(getPet.response_schema, result.body, getPet.id);
});

test('benchModel measures model-backed calls at each parallelism', async () => {
  const report = await benchModel({
    model: tinyModelFile(),
    gpu: 'cpu',
    contextSize: 2048,
    threads: 1,
    parallel: [2],
    calls: 4,
    maxTokens: 64,
  });
  assert.equal(report.prompt, 'tool-response.v1');
  assert.equal(report.gpu, false);
  assert.ok(report.load_ms > 0 && report.runtime_ms >= 0, 'a runtime already held by another engine starts in no time');
  assert.equal(report.rows.length, 1);
  const [row] = report.rows;
  assert.equal(row!.parallel, 2);
  assert.equal(row!.calls, 4);
  assert.ok(row!.answered >= 1 && row!.answered <= 4);
  assert.ok(row!.calls_per_s > 0 && row!.tokens_per_s > 0);
  assert.ok(row!.p95_ms >= row!.p50_ms);
});

test('bad model flags are usage errors', () => {
  const library = writeFixtureLibrary(tools, [petstoreApi]);
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'serve', '--library', library, '--port', '0', ...args], { encoding: 'utf8' });
  for (const [args, message] of [
    [['--responder', 'llama'], /--responder llama needs --model/],
    [['--responder', 'llama', '--model', join(library, 'nope.gguf')], /--model: no file at/],
    [
      ['--responder', 'llama', '--model', tinyModelFile(), '--parallel', '0'],
      /--parallel must be an integer between 1 and 256/,
    ],
    [['--responder', 'openai'], /--responder openai needs --responder-url/],
    [['--responder', 'openai', '--responder-url', 'ftp://x'], /--responder-url: .*must be http or https/],
    [['--responder', 'gpt'], /unknown responder "gpt"; known: .*synth.*llama, openai/],
  ] as const) {
    const result = run(...args);
    assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
});

/** The URL from a `--json` server's first stdout line; rejects with its stderr if it exits first. */
function firstJsonLine(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}
