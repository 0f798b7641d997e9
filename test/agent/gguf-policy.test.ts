import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fit } from '../../src/agent/policies/gguf.js';
import { createPolicy } from '../../src/agent/policies/create.js';
import { runAgent } from '../../src/agent/run.js';
import type { ChatMessage, Policy } from '../../src/agent/types.js';
import { writeTinyModel } from '../../src/model/tiny.js';
import type { RunningServer } from '../../src/server/serve.js';
import { tempDir } from '../fixtures/tools.js';
import { writeRetrievalLibrary } from '../retrieval/fixture.js';
import { startTestServer } from '../server/helpers.js';

let server: RunningServer;
let policy: Policy;
before(async () => {
  server = await startTestServer({ library: writeRetrievalLibrary() });
  const file = join(tempDir('toolenv-agent-gguf-'), 'tiny.gguf');
  writeTinyModel(file, { seed: 1 });
  policy = await createPolicy(`gguf:${file}`, { gpu: 'cpu', threads: 1, parallel: 1, maxTokens: 48, seed: 4 });
});
after(async () => {
  await policy.close?.();
  await server.close();
});

test(
  'the gguf policy drives a run with the tiny model: ' +
    'its noise is rejected turn after turn and the loop survives to the cap',
  async (t) => {
    const result = await runAgent({
      server: server.url,
      agent: 'paraact',
      policy,
      task: { id: 'noise', query: 'Get the weather forecast for Paris' },
      maxTurns: 3,
    });
    if (result.finish === 'error' && /no prebuilt llama\.cpp binary|cannot load model/.test(result.error ?? '')) {
      t.skip(`node-llama-cpp cannot run here: ${result.error}`);
      return;
    }
    assert.ok(result.finish === 'turn_cap' || result.finish === 'answer', `${result.finish}: ${result.error ?? ''}`);
    assert.equal(result.policy, policy.name);
    assert.match(result.policy, /^gguf:.*tiny\.gguf$/);
    const replies = result.messages.filter((m) => m.role === 'assistant');
    assert.equal(replies.length, result.turns);
    const observations = result.messages.slice(2).filter((m) => m.role === 'user');
    assert.ok(observations.length >= result.turns - 1);
    for (const observation of observations)
      assert.match(observation.content, /^<error>\nYour last message was not run:|<tools>|<tool_response>|Not run/);
    // Token counts are the model's own: the prompt is counted by its tokenizer (one token per byte here).
    assert.ok(result.tokens.prompt >= result.messages[0]!.content.length, `${result.tokens.prompt} prompt tokens`);
    assert.ok(result.tokens.completion > 0);
  },
);

test(
  'the gguf policy samples per run: ' + 'another run seed draws another message, the same seed the same one',
  async (t) => {
    const task = { id: 'noise', query: 'Get the weather forecast for Paris' };
    const prompt: ChatMessage[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: task.query },
    ];
    const write = async (seed: number) => {
      try {
        return (await policy.next(prompt, { agent: 'paraact', task, turn: 1, seed })).text;
      } catch (error) {
        if (/no prebuilt llama\.cpp binary|cannot load model/.test((error as Error).message)) return undefined;
        throw error;
      }
    };
    const first = await write(1);
    if (first === undefined) {
      t.skip('node-llama-cpp cannot run here');
      return;
    }
    const others = [await write(2), await write(3)];
    assert.ok(
      others.some((text) => text !== first),
      'other run seeds sample other text',
    );
    assert.equal(await write(1), first, 'the same run seed samples the same text');
  },
);

test(
  'a conversation longer than the context drops its oldest exchanges, ' +
    'keeping the system prompt, the task and the latest turn',
  () => {
    const count = (text: string) => text.length;
    const messages: ChatMessage[] = [
      { role: 'system', content: 's'.repeat(100) },
      { role: 'user', content: 'task' },
      ...Array.from({ length: 4 }, (_, i): ChatMessage[] => [
        { role: 'assistant', content: `a${i}`.padEnd(50, '.') },
        { role: 'user', content: `o${i}`.padEnd(50, '.') },
      ]).flat(),
    ];
    assert.equal(fit(messages, 10_000, count).length, 10);
    const kept = fit(messages, 360, count);
    assert.deepEqual(
      kept.map((m) => m.content.slice(0, 2)),
      ['ss', 'ta', 'a2', 'o2', 'a3', 'o3'],
    );
    // Nothing left to drop: the newest exchange stays even over budget (the engine then says the context is too small).
    assert.deepEqual(
      fit(messages, 10, count).map((m) => m.content.slice(0, 2)),
      ['ss', 'ta', 'a3', 'o3'],
    );
  },
);
