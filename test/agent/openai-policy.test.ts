import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createPolicy } from '../../src/agent/policies/create.js';
import { chatEndpoint } from '../../src/agent/policies/openai.js';
import { STOP_SEQUENCES } from '../../src/protocol/prompts.js';
import { sampleSeed } from '../../src/agent/policies/sample-seed.js';
import { runAgent } from '../../src/agent/run.js';
import type { ChatMessage, PolicyContext } from '../../src/agent/types.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { startTestServer } from '../server/helpers.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

/** A real HTTP server on 127.0.0.1 answering each request with the next scripted reply, recording what it got. */
async function scriptedServer(replies: Reply[]): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const hanging: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: JSON.parse(text || '{}') as Record<string, unknown>,
      });
      const reply = replies.shift() ?? { status: 500, body: { error: 'script exhausted' } };
      if (reply === 'hang') {
        hanging.push(() => res.destroy());
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((end) => end());
        server.close(() => resolve());
      }),
  };
}

const completion = (content: string | null, usage?: { prompt_tokens: number; completion_tokens: number }) => ({
  id: 'cmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  ...(usage ? { usage } : {}),
});
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Find the weather in Paris.' },
];
const context: PolicyContext = { agent: 'paraact', task: { id: 't', query: 'Find the weather in Paris.' }, turn: 1 };

test(
  'the request is an OpenAI chat completion: endpoint, model, ' +
    'messages, limits, stop sequences, bearer key; usage comes back',
  async (t) => {
    const server = await scriptedServer([
      {
        status: 200,
        body: completion('<think>x</think><search_tool>weather</search_tool>', {
          prompt_tokens: 120,
          completion_tokens: 9,
        }),
      },
    ]);
    t.after(() => server.close());
    const policy = await createPolicy(`openai:qwen3-4b@${server.url}/v1`, {
      apiKey: 'sk-test',
      maxTokens: 512,
      temperature: 0.2,
      seed: 9,
    });
    assert.equal(policy.name, `openai:qwen3-4b@${server.url}/v1`);
    const reply = await policy.next(messages, context);
    assert.deepEqual(reply, {
      text: '<think>x</think><search_tool>weather</search_tool>',
      usage: { prompt: 120, completion: 9 },
    });
    assert.equal(server.seen.length, 1);
    const [request] = server.seen;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url, '/v1/chat/completions');
    assert.equal(request!.headers.authorization, 'Bearer sk-test');
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.deepEqual(request!.body, {
      model: 'qwen3-4b',
      messages,
      max_tokens: 512,
      stop: STOP_SEQUENCES,
      stream: false,
      temperature: 0.2,
      seed: sampleSeed(9, undefined, 1),
    });
  },
);

test(
  'the request seed mixes the run seed with the turn: runs and turns differ, ' +
    'the same run and turn repeat; a server refusing it is asked without',
  async (t) => {
    const ok = { status: 200, body: completion('<answer>x</answer>', { prompt_tokens: 1, completion_tokens: 1 }) };
    const server = await scriptedServer([ok, ok, ok, ok, ok]);
    t.after(() => server.close());
    const policy = await createPolicy(`openai:m@${server.url}`);
    for (const [seed, turn] of [
      [11, 1],
      [12, 1],
      [11, 2],
      [11, 1],
    ] as const)
      await policy.next(messages, { ...context, seed, turn });
    const seeds = server.seen.map((s) => s.body.seed);
    assert.deepEqual(seeds, [
      sampleSeed(undefined, 11, 1),
      sampleSeed(undefined, 12, 1),
      sampleSeed(undefined, 11, 2),
      sampleSeed(undefined, 11, 1),
    ]);
    assert.equal(new Set(seeds).size, 3);
    assert.ok(seeds.every((seed) => Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) < 2 ** 31));
    // Neither a policy seed nor a run seed: the server's own sampling.
    await policy.next(messages, context);
    assert.equal('seed' in server.seen[4]!.body, false);

    const strict = await scriptedServer([
      { status: 400, body: { error: { message: 'Unrecognized request argument supplied: seed' } } },
      ok,
      ok,
    ]);
    t.after(() => strict.close());
    const refused = await createPolicy(`openai:m@${strict.url}`, { retries: 0 });
    assert.equal((await refused.next(messages, { ...context, seed: 5 })).text, '<answer>x</answer>');
    await refused.next(messages, { ...context, seed: 5, turn: 2 });
    assert.deepEqual(
      strict.seen.map((s) => 'seed' in s.body),
      [true, false, false],
    );
  },
);

test('sample seeds: a function of (policy seed, run seed, turn) alone', () => {
  const seed = sampleSeed(4, 1, 1);
  assert.equal(sampleSeed(4, 1, 1), seed);
  const others = [
    sampleSeed(5, 1, 1),
    sampleSeed(4, 2, 1),
    sampleSeed(4, 1, 2),
    sampleSeed(undefined, 1, 1),
    sampleSeed(4, undefined, 1),
  ];
  assert.equal(new Set([seed, ...others]).size, 6);
  assert.ok(Number.isSafeInteger(seed) && seed >= 0 && seed < 2 ** 31);
});

test('429 and 5xx answers are retried (Retry-After honoured) until one succeeds', async (t) => {
  const server = await scriptedServer([
    { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '0' } },
    { status: 503, body: { error: 'loading' } },
    { status: 502, body: 'bad gateway' },
    { status: 200, body: completion('<answer>sunny</answer>', { prompt_tokens: 10, completion_tokens: 3 }) },
  ]);
  t.after(() => server.close());
  const policy = await createPolicy(`openai:m@${server.url}`, { retries: 3, retryDelayMs: 1 });
  const reply = await policy.next(messages, context);
  assert.equal(reply.text, '<answer>sunny</answer>');
  assert.equal(server.seen.length, 4);
  assert.ok(server.seen.every((s) => s.url === '/v1/chat/completions'));
});

test('retries stop at the limit, with the last answer in the error', async (t) => {
  const server = await scriptedServer([
    { status: 500, body: { error: 'boom 1' } },
    { status: 500, body: { error: 'boom 2' } },
    { status: 500, body: { error: 'boom 3' } },
  ]);
  t.after(() => server.close());
  const policy = await createPolicy(`openai:m@${server.url}`, { retries: 2, retryDelayMs: 1 });
  await assert.rejects(
    policy.next(messages, context),
    /chat\/completions: answered 500: \{"error":"boom 3"\} \(after 3 tries\)/,
  );
  assert.equal(server.seen.length, 3);
});

test('a 4xx other than 429 fails at once, naming the status and the body', async (t) => {
  const server = await scriptedServer([{ status: 401, body: { error: { message: 'invalid api key' } } }]);
  t.after(() => server.close());
  const policy = await createPolicy(`openai:m@${server.url}`, { retries: 3, retryDelayMs: 1 });
  await assert.rejects(policy.next(messages, context), /answered 401: .*invalid api key/);
  assert.equal(server.seen.length, 1);
});

test('a request that times out is retried; a malformed answer is an error', async (t) => {
  const server = await scriptedServer([
    'hang',
    { status: 200, body: completion('<answer>ok</answer>') },
    { status: 200, body: '{"choices": []}' },
    { status: 200, body: 'not json' },
  ]);
  t.after(() => server.close());
  const policy = await createPolicy(`openai:m@${server.url}/v1/chat/completions`, {
    timeoutMs: 300,
    retries: 1,
    retryDelayMs: 1,
  });
  const reply = await policy.next(messages, context);
  assert.equal(reply.text, '<answer>ok</answer>');
  assert.equal(server.seen.length, 2);
  // Without usage in the answer, tokens are the chars/4 approximation: ceil(17/4) + ceil(26/4), ceil(19/4).
  assert.deepEqual(reply.usage, { prompt: 5 + 7, completion: 5 });
  await assert.rejects(policy.next(messages, context), /answered without choices\[0\]\.message/);
  await assert.rejects(policy.next(messages, context), /answered something that is not JSON: not json/);
});

test('a null content (a model answering with native tool calls) is an empty message, not a crash', async (t) => {
  const server = await scriptedServer([
    { status: 200, body: completion(null, { prompt_tokens: 5, completion_tokens: 1 }) },
  ]);
  t.after(() => server.close());
  const policy = await createPolicy(`openai:m@${server.url}`);
  assert.deepEqual(await policy.next(messages, context), { text: '', usage: { prompt: 5, completion: 1 } });
});

test('policy specs: bad ones are refused with an error naming the spec; endpoints are normalized', async () => {
  await assert.rejects(
    createPolicy('gpt-4'),
    /unknown policy "gpt-4": use heuristic, openai:MODEL@URL, gguf:FILE or hf:DIR/,
  );
  await assert.rejects(createPolicy('openai:@http://x'), /policy "openai:@http:\/\/x" names no model/);
  await assert.rejects(createPolicy('hf:'), /policy "hf:" names no directory/);
  await assert.rejects(
    createPolicy('hf:/no/such/model'),
    /\/no\/such\/model holds no Hugging Face model \(config\.json\)/,
  );
  const saved = process.env.OPENAI_BASE_URL;
  delete process.env.OPENAI_BASE_URL;
  try {
    await assert.rejects(createPolicy('openai:m'), /policy "openai:m" names no server/);
  } finally {
    if (saved !== undefined) process.env.OPENAI_BASE_URL = saved;
  }
  await assert.rejects(
    createPolicy('openai:m@ftp://x'),
    /policy "openai:m@ftp:\/\/x": the server URL ftp:\/\/x must be http or https/,
  );
  await assert.rejects(createPolicy('gguf:'), /policy "gguf:" names no file/);
  await assert.rejects(
    createPolicy('gguf:/no/such/model.gguf'),
    /policy "gguf:\/no\/such\/model.gguf": no file \/no\/such\/model.gguf/,
  );
  assert.equal(chatEndpoint('http://h:8000'), 'http://h:8000/v1/chat/completions');
  assert.equal(chatEndpoint('http://h:8000/v1/'), 'http://h:8000/v1/chat/completions');
  assert.equal(
    chatEndpoint('https://api.example.com/openai/v1/chat/completions'),
    'https://api.example.com/openai/v1/chat/completions',
  );
  assert.equal((await createPolicy('openai:org/model@name@https://h/v1')).name, 'openai:org/model@name@https://h/v1');
});

test(
  'a model behind the OpenAI-compatible endpoint drives a ParaAct run: ' +
    'a malformed turn is rejected with reasons, the next ones run',
  async (t) => {
    const toolenv = await startTestServer({ library: writeRetrievalLibrary() });
    t.after(() => toolenv.close());
    const say = (content: string, prompt = 100) => ({
      status: 200,
      body: completion(content, { prompt_tokens: prompt, completion_tokens: 10 }),
    });
    const model = await scriptedServer([
      say('```\n<search_tool>weather</search_tool>\n<tool_call>{"tool": "weather_forecast"}</tool_call>\n```'),
      say(
        '<think>Search first.</think>\n<plan>{"phase": "exploration", "slots": [{"capability": "weather", "query": ' +
          '"weather forecast for a city"}]}</plan>\n<search_tool>weather forecast for a city</search_tool>',
      ),
      say(
        '<think>Call it.</think>\n<plan>{"phase": "execution", "tools": ["weather_forecast"], "calls": [{"id": "w", ' +
          '"tool": "weather_forecast", "arguments": {"city": "Paris"}}]}</plan>\n<tool_call>{"id": "w"}</tool_call>',
      ),
      say('<think>Done.</think>\n<answer>The forecast for Paris is in.</answer>'),
    ]);
    t.after(() => model.close());
    const policy = await createPolicy(`openai:scripted@${model.url}/v1`, { apiKey: 'k' });
    const run = await runAgent({
      server: toolenv.url,
      agent: 'paraact',
      policy,
      task: { id: 'w', query: 'What is the weather in Paris?' },
      seed: 2,
      errorRate: 0,
    });
    assert.equal(run.finish, 'answer', run.error);
    assert.equal(run.answer, 'The forecast for Paris is in.');
    assert.equal(run.turns, 4);
    assert.equal(run.actions, 2);
    assert.deepEqual(run.tokens, { prompt: 400, completion: 40 });
    assert.deepEqual(
      run.calls.map((c) => [c.tool, c.status]),
      [['weather_forecast', 200]],
    );
    assert.equal(run.policy, `openai:scripted@${model.url}/v1`);

    // What the model was sent: the system prompt and the task, then its own messages and each observation.
    assert.equal(model.seen.length, 4);
    const sent = model.seen[3]!.body.messages as ChatMessage[];
    assert.equal(sent[0]!.role, 'system');
    assert.match(sent[0]!.content, /<search_tool>/);
    assert.deepEqual(sent[1], { role: 'user', content: 'What is the weather in Paris?' });
    assert.match(
      sent[3]!.content,
      /^<error>\nYour last message was not run:\n- a turn explores \(<search_tool>\) or executes \(<tool_call>\), not both/,
    );
    assert.match(sent[3]!.content, /unknown tool "weather_forecast": no search has returned tools yet/);
    assert.match(
      sent[5]!.content,
      /^<tools>\n\{"search":"s1","query":"weather forecast for a city","results":\[\{"id":"weather_forecast",.*"parameters":\{"city":"string, required","days":"integer"\}/,
    );
    assert.match(sent[7]!.content, /^<tool_response>\n\{"id":"w","tool":"weather_forecast","status":200,"body":/);
    assert.equal(sent.length, 8);
  },
);

test(
  'the chat agent: an OpenAI-compatible model given the functions ' +
    'as `tools` runs a chat episode on its native tool calls',
  async (t) => {
    const { startEpisodeServer } = await import('../episodes/fixture.js');
    const { ADD, GET, TASK, withGraph } = await import('../episodes/paraact-text.js');
    await withGraph();
    const env = await startEpisodeServer();
    t.after(() => env.close());
    const seen: Record<string, any>[] = [];
    const call = (id: string, name: string, args: unknown) => ({
      id,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    });
    // A model that reads its conversation: search both capabilities, add the pet,
    // read it back by the id it got, answer.
    const model = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, any>;
        seen.push(body);
        const tools = body.messages.filter((m: Record<string, any>) => m.role === 'tool');
        const last = tools.at(-1)?.content ? JSON.parse(tools.at(-1).content) : undefined;
        const message =
          tools.length === 0
            ? {
                role: 'assistant',
                content: null,
                tool_calls: [
                  call('s1', 'search_tool', { query: 'Add a pet' }),
                  call('s2', 'search_tool', { query: 'Find pet by ID' }),
                ],
              }
            : last?.tool === ADD
              ? { role: 'assistant', content: null, tool_calls: [call('c2', GET, { petId: last.body.id })] }
              : last?.tool === GET
                ? { role: 'assistant', content: `Added ${last.body.name} and read it back.` }
                : {
                    role: 'assistant',
                    content: null,
                    tool_calls: [call('c1', ADD, { name: 'Rex', status: 'available' })],
                  };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message }], usage: { prompt_tokens: 10, completion_tokens: 5 } }));
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => model.close(() => resolve())));
    const policy = await createPolicy(`openai:qwen@http://127.0.0.1:${(model.address() as AddressInfo).port}`);

    const run = await runAgent({ server: env.url, agent: 'chat', policy, task: TASK, errorRate: 0 });
    assert.equal(run.finish, 'answer', run.error);
    assert.equal(run.answer, 'Added Rex and read it back.');
    assert.deepEqual(
      run.calls.map((c) => [c.tool, c.ok]),
      [
        [ADD, true],
        [GET, true],
      ],
    );
    assert.equal(run.rewards!.r_step, null);
    assert.equal(run.rewards!.success, true);
    assert.equal(seen.length, 4);
    assert.equal('stop' in seen[0]!, false, 'the model’s template ends its message');
    assert.deepEqual(
      seen[0]!.tools.map((f: Record<string, any>) => f.function.name),
      ['search_tool', 'call_tool'],
    );
    assert.ok(
      seen[1]!.tools.some((f: Record<string, any>) => f.function.name === ADD),
      'found tools are offered as functions',
    );
    assert.deepEqual(
      seen[1]!.messages.slice(2).map((m: Record<string, any>) => [m.role, m.tool_call_id]),
      [
        ['assistant', undefined],
        ['tool', 's1'],
        ['tool', 's2'],
      ],
    );

    const text = await createPolicy('heuristic');
    assert.equal(
      (await runAgent({ server: env.url, agent: 'chat', policy: text, task: TASK, errorRate: 0 })).finish,
      'answer',
    );
    await assert.rejects(
      runAgent({
        server: env.url,
        agent: 'chat',
        policy: { name: 'gguf:x', next: () => Promise.reject(new Error('unused')) },
        task: TASK,
      }),
      /the chat agent needs a policy that calls tools natively/,
    );
  },
);
