import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentRun } from '../../src/agent/types.js';
import { createJudge, JUDGE_PROMPT, judgeMessages, parseJudgeSpec, readVerdict } from '../../src/eval/judge.js';

const task = { id: 't', query: 'What is the status of pet 7?' };
const run = {
  answer: 'Pet 7, Rex, is sold.',
  calls: [{ tool: 'petstore_test__getPetById', status: 200, ok: true, turn: 1 }],
  trajectory: {
    steps: [
      {
        step: 1,
        started_at: '',
        wall_ms: 1,
        actions: [],
        observations: [
          { type: 'search_tool', query: 'pet', results: [] },
          { type: 'tool_call', tool: 'petstore_test__getPetById', status: 200, body: { id: 7, name: 'Rex', status: 'sold' }, source: 'synth' },
        ],
      },
    ],
  },
} as unknown as AgentRun;

test('judge specs are openai:MODEL@URL; the model may be left to the server', () => {
  assert.deepEqual(parseJudgeSpec('openai:gpt-4.1@https://api.example.test/v1'), { model: 'gpt-4.1', url: 'https://api.example.test/v1' });
  assert.deepEqual(parseJudgeSpec('openai:@http://127.0.0.1:8000'), { url: 'http://127.0.0.1:8000' });
  for (const bad of ['gpt-4.1', 'openai:gpt-4.1', 'openai:m@ftp://x', 'gguf:model.gguf']) assert.throws(() => parseJudgeSpec(bad), /expected openai:MODEL@URL/, bad);
});

test('the judge sees the query, the final answer and the calls with the start of each response', () => {
  const [system, user] = judgeMessages(task, run);
  assert.equal(system!.content, JUDGE_PROMPT);
  assert.match(user!.content, /What is the status of pet 7\?/);
  assert.match(user!.content, /Final answer:\nPet 7, Rex, is sold\./);
  assert.match(user!.content, /- petstore_test__getPetById → 200: \{"id":7,"name":"Rex","status":"sold"\}/);

  // Without the trajectory the responses are unknown: the calls the agent client saw are listed, with their outcome.
  const bare = { ...run, calls: [...run.calls, { tool: 'petstore_test__updatePet', status: 429, ok: false, turn: 2, error: '429 rate_limit, injected' }], trajectory: undefined };
  const [, withoutTrajectory] = judgeMessages(task, bare);
  assert.match(withoutTrajectory!.content, /Tool calls \(2\):\n- petstore_test__getPetById → 200\n- petstore_test__updatePet → 429 \(429 rate_limit, injected\)/);
});

test('verdicts: the JSON object, else the word used; anything else is unsolved', () => {
  assert.deepEqual(readVerdict('{"verdict": "solved", "reason": "complete"}'), { solved: true, reason: 'complete' });
  assert.deepEqual(readVerdict('```json\n{"verdict": "unsolved", "reason": "no date"}\n```'), { solved: false, reason: 'no date' });
  assert.equal(readVerdict('Verdict: unsolved, the forecast is missing').solved, false);
  assert.equal(readVerdict('I think it is solved.').solved, true);
  assert.equal(readVerdict('maybe?').solved, false);
});

test('the judge asks an OpenAI-compatible endpoint for schema-guided JSON at temperature 0', async (t) => {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      bodies.push({ url: req.url, auth: req.headers.authorization, ...(JSON.parse(text) as object) });
      const verdict = text.includes('Rex') ? { verdict: 'solved', reason: 'names the status' } : { verdict: 'unsolved', reason: 'no status' };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify(verdict) }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 9 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const judge = createJudge(`openai:judge-model@${url}`, 'k3y');
  assert.deepEqual(await judge.judge(task, run), { solved: true, reason: 'names the status' });
  assert.deepEqual(await judge.judge(task, { ...run, answer: 'I could not find it.', trajectory: { ...run.trajectory!, steps: [] } }), { solved: false, reason: 'no status' });
  const body = bodies[0]!;
  assert.equal(body.url, '/v1/chat/completions');
  assert.equal(body.auth, 'Bearer k3y');
  assert.equal(body.model, 'judge-model');
  assert.equal(body.temperature, 0);
  assert.equal((body.response_format as { type: string }).type, 'json_schema');
  assert.equal((body.messages as { content: string }[])[0]!.content, JUDGE_PROMPT);
});
