import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { synthesize } from '../../src/simulator/synth/index.js';

const ajv = createAjv();
const SEEDS = Array.from({ length: 30 }, (_, seed) => seed);

function toolWith(response_schema: JsonSchema, parameters: JsonSchema = { type: 'object', properties: {} }): Tool {
  return {
    id: 'consistent_test',
    name: 'consistent test',
    description: 'a test tool',
    category: 'test',
    parameters: parameters as Tool['parameters'],
    response_schema,
    examples: [],
    origin: { format: 'openai', name: 'consistent_test' },
  };
}

function answers(schema: JsonSchema, args: Record<string, unknown>, parameters?: JsonSchema): unknown[] {
  const valid = ajv.compile(schema);
  return SEEDS.map((seed) => {
    const { body } = synthesize(toolWith(schema, parameters), args, seed);
    assert.ok(valid(body), `seed ${seed}: ${JSON.stringify(valid.errors)} in ${JSON.stringify(body)}`);
    return body;
  });
}

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'days'],
  additionalProperties: false,
};
const CLOCK = { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'] };

// OpenAI's chat completion, cut down: a choice's tool calls are function or custom calls, told apart by `type`.
const CHAT = {
  type: 'object',
  required: ['choices'],
  properties: {
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message'],
        properties: {
          message: {
            type: 'object',
            properties: {
              tool_calls: {
                type: 'array',
                items: {
                  oneOf: [
                    {
                      type: 'object',
                      required: ['type', 'function'],
                      properties: {
                        type: { const: 'function' },
                        function: {
                          type: 'object',
                          required: ['name', 'arguments'],
                          properties: { name: { type: 'string' }, arguments: { type: 'string' } },
                        },
                      },
                    },
                    {
                      type: 'object',
                      required: ['type', 'custom'],
                      properties: {
                        type: { const: 'custom' },
                        custom: {
                          type: 'object',
                          required: ['name', 'input'],
                          properties: { name: { type: 'string' }, input: { type: 'string' } },
                        },
                      },
                    },
                  ],
                },
              },
            },
          },
        },
      },
    },
  },
};

test('a call names a function the request offered, with a JSON object string valid for its parameters', () => {
  const schemas = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(CLOCK) };
  const tools = Object.entries({ get_weather: WEATHER, get_time: CLOCK }).map(([name, parameters]) => ({
    type: 'function',
    function: { name, parameters },
  }));
  let calls = 0;
  for (const body of answers(CHAT, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools })) {
    for (const choice of (body as { choices: { message: { tool_calls?: unknown[] } }[] }).choices) {
      for (const call of (choice.message.tool_calls ?? []) as { type: string; function: Record<string, string> }[]) {
        assert.equal(call.type, 'function', JSON.stringify(call));
        const name = call.function.name as keyof typeof schemas;
        assert.ok(name in schemas, name);
        assert.ok(schemas[name](JSON.parse(call.function.arguments!)), call.function.arguments);
        calls++;
      }
    }
  }
  assert.ok(calls >= 10, `${calls} calls in ${SEEDS.length} answers`);
});

test('an operation that takes tools answers no calls to a request that offers none', () => {
  const parameters = { type: 'object', properties: { messages: { type: 'array' }, tools: { type: 'array' } } };
  const messages = [{ role: 'user', content: 'hi' }];
  let choices = 0;
  for (const body of answers(CHAT, { messages }, parameters)) {
    for (const choice of (body as { choices: { message: { tool_calls?: unknown[] } }[] }).choices) {
      assert.deepEqual(choice.message.tool_calls ?? [], []);
      choices++;
    }
  }
  assert.ok(choices >= 30);
});

test('a call with object arguments (Anthropic’s tool_use) gets an object valid for the offered input_schema', () => {
  const schema = {
    type: 'object',
    required: ['content'],
    properties: {
      content: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['type', 'name', 'input'],
          properties: { type: { const: 'tool_use' }, name: { type: 'string' }, input: { type: 'object' } },
        },
      },
    },
  };
  const valid = ajv.compile(WEATHER);
  const tools = [{ name: 'get_weather', description: 'weather in a city', input_schema: WEATHER }];
  for (const body of answers(schema, { model: 'claude', tools })) {
    for (const block of (body as { content: { name: string; input: unknown }[] }).content) {
      assert.equal(block.name, 'get_weather');
      assert.ok(valid(block.input), JSON.stringify(block.input));
    }
  }
});

const EMBEDDINGS = {
  type: 'object',
  required: ['data', 'model', 'usage'],
  properties: {
    model: { type: 'string' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'embedding'],
        properties: { index: { type: 'integer' }, embedding: { type: 'array', items: { type: 'number' } } },
      },
    },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'total_tokens'],
      properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
  },
};

interface Embeddings {
  model: string;
  data: { index: number; embedding: number[] }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

test('indexed items answer one per input, their vectors share one length, the total is its one part', () => {
  for (const [input, count] of [
    ['one text', 1],
    [['a', 'b', 'c', 'd', 'e', 'f', 'g'], 7],
    [[[1, 2], [3]], 2],
  ] as const) {
    for (const body of answers(EMBEDDINGS, { model: 'embed-small', input }) as Embeddings[]) {
      assert.equal(body.model, 'embed-small');
      assert.deepEqual(
        body.data.map((item) => item.index),
        Array.from({ length: count }, (_, i) => i),
      );
      assert.equal(new Set(body.data.map((item) => item.embedding.length)).size, 1, JSON.stringify(body.data));
      assert.equal(body.usage.total_tokens, body.usage.prompt_tokens);
    }
  }
  for (const body of answers(EMBEDDINGS, { input: ['a', 'b'], dimensions: 16 }) as Embeddings[])
    for (const item of body.data) assert.equal(item.embedding.length, 16);
});

test('a total among other numbers is at least its one part; two parts or more, their sum', () => {
  const schema = {
    type: 'object',
    required: ['tax_amount', 'total_amount', 'quantity', 'input_tokens', 'output_tokens', 'total_tokens'],
    properties: Object.fromEntries(
      ['tax_amount', 'total_amount', 'quantity', 'input_tokens', 'output_tokens', 'total_tokens'].map((key) => [
        key,
        { type: 'integer', minimum: 0 },
      ]),
    ),
  };
  for (const body of answers(schema, {}) as Record<string, number>[]) {
    assert.ok(body.total_amount! >= body.tax_amount!, JSON.stringify(body));
    assert.equal(body.total_tokens, body.input_tokens! + body.output_tokens!);
  }
});

test('a record repeats the request’s string where the field’s anyOf takes it, whichever branch was drawn', () => {
  const schema = {
    type: 'object',
    required: ['model'],
    properties: { model: { anyOf: [{ type: 'string' }, { enum: ['gpt-4o', 'o3'] }] } },
  };
  for (const body of answers(schema, { model: 'my-model' }))
    assert.equal((body as { model: string }).model, 'my-model');
});
