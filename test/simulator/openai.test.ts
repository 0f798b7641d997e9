import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import { LibraryStore } from '../../src/library/store.js';
import { chatRoutes } from '../../src/server/routes/chat.js';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { ResponseCache } from '../../src/simulator/cache.js';
import { LlamaEngine } from '../../src/simulator/llama/engine.js';
import { createOpenAIResponder, OpenAIGenerator } from '../../src/simulator/openai.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { ResponderBusyError } from '../../src/simulator/queue.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';
import { addPet, assertSatisfies, getPet, objectCalls, orderTool, TEST_MODEL, tinyModelFile } from './llama-fixture.js';
import { freePort } from '../../src/server/free-port.js';

// The remote side is real: ToolEnv's own server, its POST /v1/chat/completions backed by the tiny GGUF.
const engine = new LlamaEngine({ ...TEST_MODEL, model: tinyModelFile(), parallel: 1, maxWaiting: 0 });
let remote: RunningServer;

before(async () => {
  await engine.load();
  remote = await startServer({
    library: writeFixtureLibrary(),
    cacheMode: 'off',
    responders: [synthResponder],
    port: 0,
    routes: [chatRoutes(engine)],
  });
});
after(async () => {
  await remote.close();
  await engine.close();
});

const chat = (body: unknown) =>
  fetch(`${remote.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('the chat route lists its model and answers JSON that satisfies the requested schema', async () => {
  // The served document declares both routes; what they answer is valid against it.
  const doc = (await (await fetch(`${remote.url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>
    >;
  };
  const declared = (path: string, method: string) =>
    createAjv().compile(doc.paths[path]![method]!.responses['200']!.content['application/json']!.schema);
  const listing = declared('/v1/models', 'get');
  const completed = declared('/v1/chat/completions', 'post');
  const models = (await (await fetch(`${remote.url}/v1/models`)).json()) as { data: { id: string }[] };
  assert.ok(listing(models), JSON.stringify(listing.errors));
  assert.deepEqual(
    models.data.map((m) => m.id),
    ['tiny.gguf'],
  );
  for (const [format, extra] of [
    [
      'response_format',
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'order', schema: orderTool.response_schema, strict: false },
        },
      },
    ],
    ['guided_json', { guided_json: orderTool.response_schema }],
  ] as const) {
    const response = await chat({
      model: 'tiny.gguf',
      messages: [
        { role: 'system', content: 'JSON only.' },
        { role: 'user', content: [{ type: 'text', text: 'An order.' }] },
      ],
      max_tokens: 200,
      seed: 4,
      ...extra,
    });
    assert.equal(response.status, 200, format);
    const completion = (await response.json()) as {
      object: string;
      model: string;
      choices: { message: { role: string; content: string }; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    assert.ok(completed(completion), JSON.stringify(completed.errors));
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'tiny.gguf');
    assert.equal(completion.choices[0]!.message.role, 'assistant');
    assert.equal(
      completion.choices[0]!.finish_reason,
      'stop',
      `${format}: the grammar closed the JSON within max_tokens`,
    );
    assertSatisfies(orderTool.response_schema, JSON.parse(completion.choices[0]!.message.content), format);
    assert.ok(completion.usage.completion_tokens > 0);
    assert.equal(completion.usage.total_tokens, completion.usage.prompt_tokens + completion.usage.completion_tokens);
  }
});

test('the chat route refuses what it does not offer with a problem naming it', async () => {
  const cases: [unknown, RegExp][] = [
    [{ messages: [{ role: 'user', content: 'x' }], stream: true }, /streaming is not offered/],
    [{ model: 'm' }, /must have required property 'messages'/],
    [{ messages: [] }, /\/messages must NOT have fewer than 1 items/],
    [{ messages: [{ role: 'user', content: 'x' }], tools: [] }, /unsupported member "tools"/],
    [
      { messages: [{ role: 'user', content: 'x' }], max_tokens: 5000 },
      /exceeds the context of 2048 \(raise --ctx or lower --max-tokens\)/,
    ],
    [
      {
        messages: [{ role: 'user', content: 'x' }],
        guided_json: {},
        response_format: { type: 'json_schema', json_schema: { schema: {} } },
      },
      /not both/,
    ],
  ];
  for (const [body, detail] of cases) {
    const response = await chat(body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as { title: string; detail: string };
    assert.equal(problem.title, 'Invalid chat request');
    assert.match(problem.detail, detail);
  }
});

test(
  'the remote responder gets schema-valid bodies from a real ' + 'OpenAI-compatible server, naming the model it lists',
  async () => {
    for (const schemaField of ['response_format', 'guided_json'] as const) {
      const responder = createOpenAIResponder({ url: remote.url, schemaField, maxTokens: 200 });
      for (const [tool, args] of objectCalls) {
        const answer = await responder.respond(tool, args, { seed: 2 });
        assert.ok(answer, `${schemaField} ${tool.id}: ${responder.stats.lastError ?? ''}`);
        assert.equal(answer.status, tool.response_status ?? 200);
        assertSatisfies(tool.response_schema, answer.body, `${schemaField} ${tool.id}`);
      }
      assert.equal(responder.stats.answered, objectCalls.length);
      assert.ok(responder.stats.completionTokens > 0);
    }
  },
);

test('through the pipeline the remote answer is written back: source model, then cache', async () => {
  const store = LibraryStore.open(writeFixtureLibrary([...petstoreTools, orderTool], [petstoreApi]));
  const cache = ResponseCache.open(join(tempDir('toolenv-openai-cache-'), 'responses.db'));
  after(() => {
    cache.close();
    store.close();
  });
  const responder = createOpenAIResponder({
    url: `${remote.url}/v1`,
    model: 'tiny.gguf',
    maxTokens: 200,
    fewShot: cache,
  });
  const simulator = createSimulator({ store, cache, responders: [responder, synthResponder], errorRate: 0 });
  const first = await simulator.call(getPet.id, { petId: 8 });
  assert.equal(first.source, 'model');
  assertSatisfies(getPet.response_schema, first.body, getPet.id);
  const again = await simulator.call(getPet.id, { petId: 8 });
  assert.equal(again.source, 'cache');
  assert.deepEqual(again.body, first.body);
});

test('a busy remote (503 + Retry-After) makes the responder busy too', async () => {
  let release!: () => void;
  const occupied = engine.queue.run(() => new Promise<void>((resolve) => (release = resolve)));
  try {
    const responder = createOpenAIResponder({ url: remote.url, model: 'tiny.gguf', maxTokens: 50 });
    await assert.rejects(
      responder.respond(addPet, { name: 'Rex' }, { seed: 0 }),
      (error: unknown) => error instanceof ResponderBusyError && error.retryAfterSeconds >= 1,
    );
    assert.equal(responder.stats.busy, 1);
  } finally {
    release();
    await occupied;
  }
});

test('an unreachable or slow remote falls back (undefined), counted as an error or a timeout', async () => {
  const port = await freePort();
  const down = createOpenAIResponder({ url: `http://127.0.0.1:${port}`, model: 'm' });
  assert.equal(await down.respond(addPet, { name: 'Rex' }, { seed: 0 }), undefined);
  assert.equal(down.stats.errors, 1);
  assert.equal(down.stats.fallbacks, 1);
  assert.ok(down.stats.lastError);

  const slow = createOpenAIResponder({ url: remote.url, model: 'tiny.gguf', timeoutMs: 1 });
  assert.equal(await slow.respond(addPet, { name: 'Rex' }, { seed: 0 }), undefined);
  assert.equal(slow.stats.timeouts, 1);

  const noModel = createOpenAIResponder({ url: `http://127.0.0.1:${port}` });
  assert.equal(
    await noModel.respond(addPet, { name: 'Rex' }, { seed: 0 }),
    undefined,
    'a model list that cannot be read is an error too',
  );
  assert.equal(noModel.stats.errors, 1);
});

test('the endpoint is the chat-completions URL whatever form the server URL takes', () => {
  assert.equal(new OpenAIGenerator({ url: 'http://h:8000' }).endpoint, 'http://h:8000/v1/chat/completions');
  assert.equal(new OpenAIGenerator({ url: 'http://h:8000/v1/' }).endpoint, 'http://h:8000/v1/chat/completions');
  assert.equal(
    new OpenAIGenerator({ url: 'https://h/proxy/v1/chat/completions' }).endpoint,
    'https://h/proxy/v1/chat/completions',
  );
  assert.throws(() => new OpenAIGenerator({ url: 'not a url' }), /is not a URL/);
});
