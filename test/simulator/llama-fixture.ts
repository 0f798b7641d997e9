/** Shared by the model responder tests: the tiny GGUF, tools whose responses are objects, and a schema check. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Tool } from '../../src/library/tool.js';
import { writeTinyModel } from '../../src/model/tiny.js';
import { createAjv } from '../../src/library/ajv.js';
import { petstoreTools, tempDir } from '../fixtures/tools.js';

let modelFile: string | undefined;

/** The tiny model, written once per test process. */
export function tinyModelFile(): string {
  if (!modelFile) {
    modelFile = join(tempDir('toolenv-llama-'), 'tiny.gguf');
    writeTinyModel(modelFile, { seed: 1 });
  }
  return modelFile;
}

/**
 * A response schema with what real documents hold: $defs and $ref, allOf, an enum, a date-time, nullable, bounded
 * arrays.
 */
const order = {
  $defs: {
    Money: {
      type: 'object',
      required: ['amount', 'currency'],
      properties: { amount: { type: 'number' }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
    },
  },
  type: 'object',
  required: ['order_id', 'total', 'status', 'created_at'],
  properties: {
    order_id: { type: 'string', maxLength: 12 },
    total: { $ref: '#/$defs/Money' },
    status: { enum: ['open', 'paid', 'shipped'] },
    created_at: { type: 'string', format: 'date-time' },
    lines: {
      type: 'array',
      maxItems: 3,
      items: { allOf: [{ $ref: '#/$defs/Money' }, { type: 'object', properties: { sku: { type: 'string' } } }] },
    },
    note: { type: ['string', 'null'] },
  },
};

export const orderTool: Tool = {
  id: 'shop_test__getOrder',
  name: 'Get an order',
  description: 'Returns one order with its lines and total.',
  category: 'ecommerce',
  parameters: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } },
  response_schema: order,
  examples: [],
  origin: { format: 'openai', name: 'shop.getOrder' },
};

export const addPet = petstoreTools.find((t) => t.id === 'petstore_test__addPet')!;
export const getPet = petstoreTools.find((t) => t.id === 'petstore_test__getPetById')!;

/** Tools whose response schema is an object, with arguments to call them with. */
export const objectCalls: [Tool, Record<string, unknown>][] = [
  [addPet, { name: 'Rex', status: 'available' }],
  [getPet, { petId: 42 }],
  [orderTool, { order_id: 'A-1' }],
];

const ajv = createAjv();

export function assertSatisfies(schema: unknown, body: unknown, what: string): void {
  const validate = ajv.compile(schema as object);
  assert.ok(validate(body), `${what}: ${JSON.stringify(body)} fails its schema: ${ajv.errorsText(validate.errors)}`);
}

/**
 * Small generations keep the tests quick on two cores; llama.cpp's warnings are asserted where they matter, not
 * printed.
 */
export const TEST_MODEL = {
  gpu: 'cpu',
  contextSize: 2048,
  maxTokens: 200,
  parallel: 2,
  threads: 1,
  log: (_line: string) => {},
} as const;
