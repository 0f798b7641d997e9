import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '../../src/library/tool.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../../src/simulator/problem.js';
import { vendorError } from '../../src/simulator/vendor-error.js';
import type { CallResult } from '../../src/simulator/types.js';

const tool = (declared: string[]): Tool => ({
  id: 'shop_test__placeOrder',
  name: 'Place an order',
  description: '',
  category: 'commerce',
  parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  bindings: { sku: { in: 'body', name: 'sku' } },
  examples: [],
  error_responses: Object.fromEntries(declared.map((status) => [status, null])),
  origin: { format: 'openapi', api_id: 'shop.test', method: 'post', path: '/orders', operation_id: null, server: null },
});

/** The Rule layer's refusal of a call without its required argument. */
const refused: CallResult = {
  status: 400,
  source: 'rule',
  headers: { 'content-type': PROBLEM_CONTENT_TYPE },
  body: problem(400, 'Invalid arguments', '/sku is required', { errors: [{ path: '/sku', message: 'is required' }] }),
};

test('a refused argument takes a declared status that means one, never a timeout a client would retry', async () => {
  const status = async (declared: string[]) => (await vendorError(tool(declared), refused, {}, {}, 1)).status;
  assert.equal(await status(['408', '409']), 409);
  assert.equal(await status(['401', '408', '429', '404']), 404);
  assert.equal(await status(['422', '400']), 422);
  assert.equal(await status(['default']), 400);
  // Nothing declared that could stand for a bad argument: the problem's own 400.
  assert.equal(await status(['401', '408']), 400);
});
