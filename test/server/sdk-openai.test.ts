/**
 * openai-node's main calls against OpenAI's current document (`npm run setup:openai-document`), imported beside the
 * library as a user would (`library import`) and served at the root of a port (`serve --api-port openai_api=…`),
 * with only documented configuration (`baseURL`). Skipped where the document is missing, unless
 * TOOLENV_REQUIRE_OPENAI_DOCUMENT=1, where its absence is a failure.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ResponseOutputItem, ResponseStatus } from 'openai/resources/responses/responses';
import { readImport, writeImport } from '../../src/library/importers/index.js';
import { packageRoot } from '../../src/paths.js';
import type { RunningServer } from '../../src/server/serve.js';
import { librarySynthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir } from '../fixtures/tools.js';
import { startTestServer } from './helpers.js';

const DOCUMENT = join(packageRoot, 'documents', 'openai', 'openapi.yml');
const API = 'openai_api';

function documentSkip(): string | false {
  if (existsSync(DOCUMENT)) return false;
  if (process.env.TOOLENV_REQUIRE_OPENAI_DOCUMENT === '1')
    throw new Error(`TOOLENV_REQUIRE_OPENAI_DOCUMENT=1 but ${DOCUMENT} is missing (npm run setup:openai-document)`);
  return `${DOCUMENT} is missing (npm run setup:openai-document): openai-node against it is skipped`;
}

// The values openai-node's types allow: Records over the SDK's own unions, so that tsc fails when they drift apart.
const FINISH_REASONS: Record<ChatCompletion.Choice['finish_reason'], true> = {
  stop: true,
  length: true,
  tool_calls: true,
  content_filter: true,
  function_call: true,
};
const RESPONSE_STATUSES: Record<ResponseStatus, true> = {
  completed: true,
  failed: true,
  in_progress: true,
  cancelled: true,
  queued: true,
  incomplete: true,
};
const OUTPUT_ITEM_TYPES: Record<ResponseOutputItem['type'], true> = {
  message: true,
  file_search_call: true,
  function_call: true,
  function_call_output: true,
  web_search_call: true,
  computer_call: true,
  computer_call_output: true,
  reasoning: true,
  program: true,
  program_output: true,
  tool_search_call: true,
  tool_search_output: true,
  additional_tools: true,
  compaction: true,
  image_generation_call: true,
  code_interpreter_call: true,
  local_shell_call: true,
  local_shell_call_output: true,
  shell_call: true,
  shell_call_output: true,
  apply_patch_call: true,
  apply_patch_call_output: true,
  mcp_call: true,
  mcp_list_tools: true,
  mcp_approval_request: true,
  mcp_approval_response: true,
  custom_tool_call: true,
  custom_tool_call_output: true,
};

const PROMPTS = ['What is the weather in Paris?', 'And in Rome?', 'Name three rivers.'];
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** Arguments the `get_weather` tool's parameters take: a JSON object with a city. */
function assertWeather(text: string): void {
  const args = JSON.parse(text) as { city?: unknown };
  assert.equal(typeof args.city, 'string', text);
}

describe('openai-node against OpenAI’s current document', { skip: documentSkip() }, () => {
  let server: RunningServer;
  let openai: OpenAI;
  before(async () => {
    const library = tempDir('toolenv-openai-');
    writeImport(library, (await readImport(DOCUMENT, 'openapi')).batch);
    // As `serve` answers: the synthesizer expanding the response schemas' cuts from the stored document.
    server = await startTestServer({
      library,
      responders: [librarySynthResponder(library)],
      apiPorts: [{ apiId: API, port: 0 }],
    });
    openai = new OpenAI({ apiKey: 'sk-toolenv', baseURL: server.apiUrls[API], maxRetries: 0 });
  });
  after(() => server.close());

  it('chat.completions.create with tools: finish reasons, calls of the offered tool, token sums', async () => {
    let calls = 0;
    for (const content of PROMPTS) {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER } }],
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, 'gpt-4o');
      assert.ok(completion.choices.length > 0);
      completion.choices.forEach((choice, index) => {
        assert.equal(choice.index, index);
        assert.ok(choice.finish_reason in FINISH_REASONS, choice.finish_reason);
        assert.equal(choice.message.role, 'assistant');
        assert.ok(choice.message.content === null || typeof choice.message.content === 'string');
        for (const call of choice.message.tool_calls ?? []) {
          assert.equal(typeof call.id, 'string');
          // Only a function tool was offered: every call is of it, with arguments its parameters take.
          assert.equal(call.type, 'function', JSON.stringify(call));
          assert.equal(call.function.name, 'get_weather');
          assertWeather(call.function.arguments);
          calls++;
        }
      });
      const usage = completion.usage!;
      assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens, JSON.stringify(usage));
    }
    assert.ok(calls > 0, 'no tool calls in three completions');
  });

  it('chat.completions.create without tools: no tool calls', async () => {
    for (const content of PROMPTS) {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
      });
      for (const choice of completion.choices) assert.deepEqual(choice.message.tool_calls ?? [], []);
    }
  });

  it('responses.create with a function tool: a response whose output items and text the SDK reads', async () => {
    const items: ResponseOutputItem[] = [];
    for (const input of PROMPTS) {
      // The document's Tool union is 15 members told apart by `type` alone: a function tool must match only one.
      const response = await openai.responses.create({
        model: 'gpt-4o',
        input,
        tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER, strict: true }],
      });
      assert.equal(response.object, 'response');
      assert.equal(response.model, 'gpt-4o');
      assert.equal(typeof response.id, 'string');
      assert.ok(response.status === undefined || response.status in RESPONSE_STATUSES, response.status);
      items.push(...response.output);
      // output_text is the SDK's own: the output_text parts of the message items, which it read to join them.
      const texts = response.output.flatMap((item) =>
        item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [],
      );
      assert.equal(response.output_text, texts.join(''));
    }
    assert.ok(items.length > 0, 'no output items in three responses');
    for (const item of items) {
      assert.ok(item.type in OUTPUT_ITEM_TYPES, JSON.stringify(item));
      if (item.type === 'message') {
        assert.equal(item.role, 'assistant');
        for (const part of item.content) assert.ok(part.type === 'output_text' || part.type === 'refusal', part.type);
      }
      // Calls of tools the request did not offer (a web search, a shell) are left out.
      assert.ok(!/_call$/.test(item.type) || item.type === 'function_call', item.type);
      if (item.type === 'function_call') {
        assert.equal(typeof item.call_id, 'string');
        assert.equal(item.name, 'get_weather');
        assertWeather(item.arguments);
      }
    }
  });

  it('embeddings.create with encoding_format float: one vector per input, of one length, indexed in order', async () => {
    // openai-node asks for base64 unless told otherwise and decodes what it gets as base64; the document declares
    // only the list of floats, which is what ToolEnv answers.
    const embeddings = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['The quick brown fox', 'jumped over the lazy dog'],
      encoding_format: 'float',
    });
    assert.equal(embeddings.object, 'list');
    assert.equal(embeddings.model, 'text-embedding-3-small');
    assert.equal(embeddings.data.length, 2);
    embeddings.data.forEach((item, index) => {
      assert.equal(item.object, 'embedding');
      assert.equal(item.index, index);
      assert.ok(Array.isArray(item.embedding) && item.embedding.every(Number.isFinite), JSON.stringify(item));
    });
    assert.equal(embeddings.data[0]!.embedding.length, embeddings.data[1]!.embedding.length);
    assert.ok(Number.isInteger(embeddings.usage.prompt_tokens));
    assert.equal(embeddings.usage.total_tokens, embeddings.usage.prompt_tokens);
    const sized = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'one text',
      dimensions: 8,
      encoding_format: 'float',
    });
    assert.equal(sized.data.length, 1);
    assert.equal(sized.data[0]!.embedding.length, 8);
  });

  it('models.list iterates its page and models.retrieve answers the model asked for', async () => {
    const models: OpenAI.Models.Model[] = [];
    for await (const model of openai.models.list()) models.push(model);
    assert.ok(models.length > 0);
    for (const model of models) {
      assert.equal(model.object, 'model');
      assert.equal(typeof model.id, 'string');
      assert.ok(Number.isInteger(model.created));
      assert.equal(typeof model.owned_by, 'string');
    }
    const retrieved = await openai.models.retrieve('gpt-4o');
    assert.equal(retrieved.id, 'gpt-4o');
  });
});
