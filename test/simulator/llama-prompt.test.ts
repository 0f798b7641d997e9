import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderToolPrompt } from '../../src/simulator/prompt/render.js';
import { TOOL_RESPONSE_V1 } from '../../src/simulator/prompt/tool-response.v1.js';
import { petstoreTools } from '../fixtures/tools.js';

const addPet = petstoreTools.find((t) => t.id === 'petstore_test__addPet')!;
const weather = petstoreTools.find((t) => t.id === 'weather_forecast')!;
const chars = (text: string) => text.length;

test('the prompt carries the tool, its schemas, the status and the arguments, and asks for the body only', () => {
  const prompt = renderToolPrompt(addPet, { name: 'Rex' }, { budgetTokens: 100_000, countTokens: chars });
  assert.equal(prompt.version, 'tool-response.v1');
  assert.equal(prompt.system, TOOL_RESPONSE_V1.system);
  assert.match(prompt.system, /response body only/);
  assert.ok(prompt.user.includes('Tool: Add a pet (petstore_test__addPet)'));
  assert.ok(prompt.user.includes(JSON.stringify(addPet.parameters)));
  assert.ok(prompt.user.includes(JSON.stringify(addPet.response_schema)));
  assert.ok(prompt.user.includes('Response status: 201'));
  assert.ok(prompt.user.endsWith('Call arguments: {"name":"Rex"}\nResponse body:'));
  assert.doesNotMatch(prompt.user, /\{\{\w+\}\}/, 'no placeholder is left');
  assert.equal(prompt.examples, 0);
  assert.equal(prompt.tokens, prompt.system.length + prompt.user.length);
});

test('a tool without a response schema says so', () => {
  const prompt = renderToolPrompt(weather, { city: 'Oslo' }, { budgetTokens: 100_000, countTokens: chars });
  assert.ok(prompt.user.includes(`Response schema: ${TOOL_RESPONSE_V1.noSchema}`));
});

test('few-shot examples come before the call, in order, and only as many as fit the budget', () => {
  const examples = [
    { arguments: { name: 'A' }, status: 201, body: { id: 1, name: 'A' } },
    { status: 201, body: { id: 2, name: 'B', note: 'x'.repeat(500) } },
    { arguments: { name: 'C' }, status: 201, body: { id: 3, name: 'C' } },
  ];
  const all = renderToolPrompt(addPet, { name: 'Rex' }, { examples, budgetTokens: 100_000, countTokens: chars });
  assert.equal(all.examples, 3);
  const first = all.user.indexOf('{"id":1,"name":"A"}');
  const third = all.user.indexOf('{"id":3,"name":"C"}');
  assert.ok(first > 0 && third > first && third < all.user.indexOf('Call arguments: {"name":"Rex"}'));
  assert.ok(
    all.user.includes(`Example call arguments: ${TOOL_RESPONSE_V1.unrecordedArguments}`),
    'a spec example has no recorded arguments',
  );

  const bare = renderToolPrompt(addPet, { name: 'Rex' }, { budgetTokens: 100_000, countTokens: chars });
  const tight = renderToolPrompt(
    addPet,
    { name: 'Rex' },
    { examples, budgetTokens: bare.tokens + 200, countTokens: chars },
  );
  assert.equal(tight.examples, 2, 'the long example is skipped, the short ones still fit');
  assert.ok(!tight.user.includes('xxxx'));
  assert.ok(tight.tokens <= bare.tokens + 200);

  const none = renderToolPrompt(addPet, { name: 'Rex' }, { examples, budgetTokens: 10, countTokens: chars });
  assert.equal(none.examples, 0, 'the call itself is never dropped, only examples');
  assert.ok(none.user.includes('Call arguments: {"name":"Rex"}'));
});

test('long descriptions are cut', () => {
  const tool = { ...addPet, description: 'd'.repeat(5000) };
  const prompt = renderToolPrompt(tool, {}, { budgetTokens: 100_000, countTokens: chars, maxDescriptionChars: 100 });
  assert.ok(prompt.user.includes(`Description: ${'d'.repeat(100)}…\n`));
});

test('argument text that looks like a placeholder is not expanded', () => {
  const prompt = renderToolPrompt(
    addPet,
    { name: '{{arguments}} $& $1' },
    { budgetTokens: 100_000, countTokens: chars },
  );
  assert.ok(prompt.user.includes('Call arguments: {"name":"{{arguments}} $& $1"}'));
});
