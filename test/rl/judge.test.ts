import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JUDGE_PROMPT_V1 } from '../../src/rl/judge-prompt.v1.js';
import {
  createAnswerJudge,
  JUDGE_LIMITS,
  JudgeError,
  judgeMessages,
  parseJudgeSpec,
  readVerdicts,
  type JudgeInput,
} from '../../src/rl/judge.js';
import { VERDICTS } from '../../src/wire/rewards.js';
import { chatRoutes } from '../../src/server/routes/chat.js';
import { freePort } from '../../src/server/free-port.js';
import { startServer } from '../../src/server/serve.js';
import { LlamaEngine } from '../../src/simulator/llama/engine.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';
import { TEST_MODEL, tinyModelFile } from '../simulator/llama-fixture.js';

const INPUT: JudgeInput = {
  query: 'What is the weather in Paris today?',
  answer: 'It is 18 °C and sunny in Paris.',
  results: [{ tool: 'weather__current', status: 200, body: { city: 'Paris', temp_c: 18, sky: 'sunny' } }],
};
const GOOD = { quality: 'YES', faithfulness: 'YES', utility: 'PARTIAL', reason: 'Complete and supported.' };

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | undefined;
}
/** What the fake answers a chat request: a status and JSON (or text), or nothing at all. */
type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | 'hang';

/**
 * A local server playing the OpenAI API: `GET /v1/models` lists `fake-model`, chat requests get `reply(n)`, n from 1.
 */
async function fakeOpenAI(reply: (n: number) => Reply) {
  const requests: Seen[] = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined,
    };
    if (seen.url.endsWith('/models'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"fake-model"}]}');
    requests.push(seen);
    const answer = reply(requests.length);
    if (answer === 'hang') return;
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.text ?? JSON.stringify(answer.json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const completion = (content: string) => ({
  json: {
    choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
  },
});

test('parseJudgeSpec reads openai:MODEL@URL, MODEL optional, and refuses anything else', () => {
  assert.deepEqual(parseJudgeSpec('openai:Qwen/Qwen3-235B-A22B-Instruct-2507@http://judge:8000/v1'), {
    model: 'Qwen/Qwen3-235B-A22B-Instruct-2507',
    url: 'http://judge:8000/v1',
  });
  assert.deepEqual(parseJudgeSpec('openai:@https://api.example.com'), { url: 'https://api.example.com' });
  assert.deepEqual(
    parseJudgeSpec('openai:m@http://user@host:1/v1'),
    { model: 'm', url: 'http://user@host:1/v1' },
    'the model ends at the first @ before the URL',
  );
  for (const bad of [
    '',
    'openai:m',
    'openai:m@',
    'openai:m@ftp://host',
    'llama:m@http://host',
    'openai:m@http://',
    'm@http://host',
  ]) {
    assert.throws(() => parseJudgeSpec(bad), {
      message: `expected openai:MODEL@URL (an OpenAI-compatible chat endpoint), got ${JSON.stringify(bad)}`,
    });
  }
  assert.throws(
    () => createAnswerJudge('openai:m@http://h', { retries: -1 }),
    /retries must be an integer of at least 0/,
  );
});

test('judgeMessages shows the task, every result and the answer, under the versioned prompt', () => {
  const [system, user] = judgeMessages(INPUT);
  assert.deepEqual(system, { role: 'system', content: JUDGE_PROMPT_V1.system });
  assert.equal(user!.role, 'user');
  for (const part of [
    INPUT.query,
    INPUT.answer,
    'weather__current (status 200)',
    '{"city":"Paris","temp_c":18,"sky":"sunny"}',
    'Tool results (1 of 1)',
  ]) {
    assert.ok(user!.content.includes(part), `shows ${part}`);
  }
  assert.ok(
    user!.content.indexOf(INPUT.query) < user!.content.indexOf('weather__current') &&
      user!.content.indexOf('weather__current') < user!.content.indexOf(INPUT.answer),
  );
  assert.match(JUDGE_PROMPT_V1.version, /^answer-judge\.v1$/);
  for (const word of ['quality', 'faithfulness', 'utility', 'PARTIAL', 'only from what is shown'])
    assert.ok(system!.content.includes(word), word);
});

test('judgeMessages says so when there are no results or no answer', () => {
  const user = judgeMessages({ query: 'q', answer: '  ', results: [] })[1]!.content;
  assert.match(user, /no tool results/);
  assert.match(user, /no final answer/);
});

test('judgeMessages bounds what the judge is shown: 20 results, long bodies and answers cut with a marker', () => {
  const results = Array.from({ length: 25 }, (_, i) => ({
    tool: `tool_${i}`,
    status: 200,
    body: { i, text: 'x'.repeat(3_000) },
  }));
  const user = judgeMessages({ query: 'q', answer: 'a'.repeat(10_000), results })[1]!.content;
  assert.ok(user.includes('tool_19 (status 200)'));
  assert.ok(!user.includes('tool_20 (status 200)'));
  assert.match(user, /Tool results \(20 of 25\)/);
  assert.match(user, /5 later results not shown/);
  const body = JSON.stringify(results[0]!.body);
  assert.ok(
    user.includes(body.slice(0, JUDGE_LIMITS.bodyChars) + JUDGE_PROMPT_V1.cut(body.length - JUDGE_LIMITS.bodyChars)),
  );
  assert.ok(user.includes('a'.repeat(JUDGE_LIMITS.answerChars) + JUDGE_PROMPT_V1.cut(2_000)));
  assert.ok(!user.includes('a'.repeat(JUDGE_LIMITS.answerChars + 1)));
  assert.ok(user.length < 20 * 1_600 + 9_000, `${user.length} characters`);
});

test('readVerdicts reads plain, fenced, prose-wrapped, lower-case and cut-off replies, and nothing else', () => {
  const expected = { quality: 'YES', faithfulness: 'PARTIAL', utility: 'NO' };
  const json = '{"quality":"YES","faithfulness":"PARTIAL","utility":"NO","reason":"r"}';
  assert.deepEqual(readVerdicts(json), expected);
  assert.deepEqual(readVerdicts(`\`\`\`json\n${json}\n\`\`\``), expected);
  assert.deepEqual(readVerdicts(`Here are my verdicts: ${json} Hope that helps.`), expected);
  assert.deepEqual(readVerdicts('{"quality": "yes", "faithfulness": " Partial ", "utility": "no"}'), expected);
  assert.deepEqual(
    readVerdicts('{"quality":"YES","faithfulness":"PARTIAL","utility":"NO","reason":"the answer was cut of'),
    expected,
    'cut off in its reason',
  );
  for (const broken of [
    '',
    'YES YES NO',
    '{"quality":"YES","faithfulness":"PARTIAL"}',
    '{"quality":"MAYBE","faithfulness":"YES","utility":"YES"}',
    '{"quality":1,"faithfulness":"YES","utility":"YES"}',
    '{not json',
  ]) {
    assert.equal(readVerdicts(broken), undefined, broken);
  }
});

test('the judge asks once, schema-constrained at temperature 0, and returns the verdicts', async () => {
  const fake = await fakeOpenAI(() => completion(JSON.stringify(GOOD)));
  try {
    const judge = createAnswerJudge(`openai:judge-model@${fake.url}/v1`, { apiKey: 'sk-test' });
    assert.equal(judge.name, `openai:judge-model@${fake.url}/v1`);
    const outcome = await judge.judge(INPUT);
    assert.deepEqual(outcome, {
      verdicts: { quality: 'YES', faithfulness: 'YES', utility: 'PARTIAL' },
      reason: 'Complete and supported.',
      model: 'judge-model',
      prompt_version: 'answer-judge.v1',
      attempts: 1,
    });
    assert.equal(fake.requests.length, 1);
    const [request] = fake.requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url, '/v1/chat/completions');
    assert.equal(request!.headers.authorization, 'Bearer sk-test');
    const body = request!.body!;
    assert.equal(body.model, 'judge-model');
    assert.equal(body.temperature, 0);
    assert.equal(body.seed, 0);
    assert.equal(body.max_tokens, 256);
    assert.deepEqual(body.messages, judgeMessages(INPUT));
    const format = body.response_format as {
      type: string;
      json_schema: { schema: { required: string[]; properties: Record<string, { enum?: string[] }> } };
    };
    assert.equal(format.type, 'json_schema');
    assert.deepEqual(format.json_schema.schema.required, ['quality', 'faithfulness', 'utility', 'reason']);
    for (const axis of ['quality', 'faithfulness', 'utility'])
      assert.deepEqual(format.json_schema.schema.properties[axis]!.enum, [...VERDICTS]);
  } finally {
    await fake.close();
  }
});

test(
  'with no model in the spec the judge asks the server for its first, ' +
    'sends no key unless given, and reports that model',
  async () => {
    const fake = await fakeOpenAI(() => completion(JSON.stringify(GOOD)));
    try {
      const outcome = await createAnswerJudge(`openai:@${fake.url}`).judge(INPUT);
      assert.equal(outcome.model, 'fake-model');
      assert.equal(fake.requests[0]!.body!.model, 'fake-model');
      assert.equal(fake.requests[0]!.headers.authorization, undefined);
    } finally {
      await fake.close();
    }
  },
);

test('a 500 is retried: the second answer counts, attempts 2', async () => {
  const fake = await fakeOpenAI((n) => (n === 1 ? { status: 500, text: 'boom' } : completion(JSON.stringify(GOOD))));
  try {
    const outcome = await createAnswerJudge(`openai:m@${fake.url}`).judge(INPUT);
    assert.equal(outcome.attempts, 2);
    assert.equal(outcome.verdicts.quality, 'YES');
    assert.equal(fake.requests.length, 2);
  } finally {
    await fake.close();
  }
});

test('a 429 is retried after its Retry-After', async () => {
  const fake = await fakeOpenAI((n) =>
    n === 1 ? { status: 429, text: '{}', headers: { 'retry-after': '1' } } : completion(JSON.stringify(GOOD)),
  );
  try {
    const started = performance.now();
    const outcome = await createAnswerJudge(`openai:m@${fake.url}`).judge(INPUT);
    assert.equal(outcome.attempts, 2);
    assert.ok(performance.now() - started >= 950, 'waited the second Retry-After asked for');
  } finally {
    await fake.close();
  }
});

test(
  'a server that always answers 500 fails with JudgeError after retries + 1 requests, ' + 'saying what failed',
  async () => {
    const fake = await fakeOpenAI(() => ({ status: 500, text: 'internal trouble' }));
    try {
      const judge = createAnswerJudge(`openai:m@${fake.url}`, { retries: 2 });
      await assert.rejects(judge.judge(INPUT), (error: unknown) => {
        assert.ok(error instanceof JudgeError);
        assert.equal(error.name, 'JudgeError');
        assert.equal(
          error.message,
          `judge openai:m@${fake.url}: 3 attempts failed: ` +
            `${fake.url}/v1/chat/completions answered 500: internal trouble`,
        );
        return true;
      });
      assert.equal(fake.requests.length, 3);
    } finally {
      await fake.close();
    }
  },
);

test('a server that never answers fails with JudgeError by timeout', async () => {
  const fake = await fakeOpenAI(() => 'hang');
  try {
    await assert.rejects(
      createAnswerJudge(`openai:m@${fake.url}`, { timeoutMs: 300, retries: 1 }).judge(INPUT),
      (error: unknown) => {
        assert.ok(error instanceof JudgeError);
        assert.match(error.message, /2 attempts failed: no answer within 300 ms$/);
        return true;
      },
    );
    assert.equal(fake.requests.length, 2);
  } finally {
    await fake.close();
  }
});

test('unreadable verdicts are retried, then fail with JudgeError', async () => {
  const fake = await fakeOpenAI(() => completion('I think the answer is fine.'));
  try {
    await assert.rejects(createAnswerJudge(`openai:m@${fake.url}`, { retries: 1 }).judge(INPUT), (error: unknown) => {
      assert.ok(error instanceof JudgeError);
      assert.match(error.message, /2 attempts failed: unreadable verdicts: "I think the answer is fine\."$/);
      return true;
    });
    assert.equal(fake.requests.length, 2);
  } finally {
    await fake.close();
  }
});

test('a closed port fails with JudgeError naming the refused connection', async () => {
  const port = await freePort();
  await assert.rejects(
    createAnswerJudge(`openai:m@http://127.0.0.1:${port}`, { retries: 1 }).judge(INPUT),
    (error: unknown) => {
      assert.ok(error instanceof JudgeError);
      assert.match(
        error.message,
        new RegExp(`^judge openai:m@http://127\\.0\\.0\\.1:${port}: 2 attempts failed: fetch failed \\(.*ECONNREFUSED`),
      );
      return true;
    },
  );
});

test("the caller's abort is not retried: it comes back as the caller's reason", async () => {
  const fake = await fakeOpenAI(() => 'hang');
  try {
    const reason = new Error('episode cancelled');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(
      createAnswerJudge(`openai:m@${fake.url}`).judge(INPUT, controller.signal),
      (error: unknown) => error === reason,
    );
    assert.equal(fake.requests.length, 1);
  } finally {
    await fake.close();
  }
});

test('the real model: the project’s own chat route on the tiny GGUF gives three valid verdicts', async () => {
  const engine = new LlamaEngine({ ...TEST_MODEL, model: tinyModelFile(), contextSize: 4096, parallel: 1 });
  const remote = await startServer({
    library: writeFixtureLibrary(),
    cacheMode: 'off',
    responders: [synthResponder],
    port: 0,
    routes: [chatRoutes(engine)],
    log: () => {},
  });
  try {
    const outcome = await createAnswerJudge(`openai:@${remote.url}`, { timeoutMs: 30_000, retries: 0 }).judge(INPUT);
    assert.equal(outcome.model, 'tiny.gguf');
    assert.equal(outcome.attempts, 1);
    for (const axis of ['quality', 'faithfulness', 'utility'] as const)
      assert.ok(VERDICTS.includes(outcome.verdicts[axis]), `${axis}: ${outcome.verdicts[axis]}`);
    assert.equal(typeof outcome.reason, 'string');
  } finally {
    await remote.close();
    await engine.close();
  }
});
