/** Filling a declared error schema with a Rule-layer reason: the shapes beyond GitHub's and Stripe's. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { errorBody, type ErrorReason } from '../../src/simulator/error-body.js';

const tool: Tool = {
  id: 'example_com__getThing',
  name: 'Get a thing',
  description: 'Get a thing by id',
  category: 'test',
  parameters: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  bindings: { id: { in: 'path', name: 'id' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'example.com',
    method: 'get',
    path: '/things/{id}',
    operation_id: 'getThing',
    server: null,
  },
};

const missing: ErrorReason = {
  status: 400,
  kind: 'validation',
  message: '/id is required',
  title: 'Invalid arguments',
  code: 'parameter_missing',
  fields: [{ name: 'id', message: '/id is required' }],
};
const limited: ErrorReason = {
  status: 429,
  kind: 'rate_limit',
  message: 'rate limit exceeded; retry after 2 s',
  title: 'Too Many Requests',
  code: 'rate_limit',
  fields: [],
};

const ajv = createAjv();
function filled(schema: JsonSchema, reason: ErrorReason): Record<string, unknown> {
  const body = errorBody(tool, schema, reason, {}, 1);
  assert.ok(ajv.validate(schema as object, body), `${JSON.stringify(body)}: ${ajv.errorsText()}`);
  return body as Record<string, unknown>;
}

test("Google's {error: {code, message, status}}: the code is the status, the status enum its canonical name", () => {
  const status = {
    type: 'string',
    enum: ['OK', 'INVALID_ARGUMENT', 'NOT_FOUND', 'RESOURCE_EXHAUSTED', 'UNAUTHENTICATED', 'UNAVAILABLE'],
  };
  const schema = {
    type: 'object',
    properties: {
      error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, status } },
    },
  };
  assert.deepEqual(filled(schema, limited).error, {
    code: 429,
    message: 'rate limit exceeded; retry after 2 s',
    status: 'RESOURCE_EXHAUSTED',
  });
  assert.equal((filled(schema, missing).error as Record<string, unknown>).status, 'INVALID_ARGUMENT');
});

test("OAuth's {error, error_description}: error is the code, the description the reason", () => {
  const schema = {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  };
  assert.deepEqual(filled(schema, missing), { error: 'parameter_missing', error_description: '/id is required' });
});

test("Slack's {ok: false, error} and JSend's {status: fail}: the flag says it failed, error is the code", () => {
  const slack = {
    type: 'object',
    required: ['ok'],
    properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
  };
  assert.deepEqual(filled(slack, limited), { ok: false, error: 'rate_limit' });
  const jsend = {
    type: 'object',
    required: ['status', 'message'],
    properties: { status: { type: 'string', enum: ['success', 'fail', 'error'] }, message: { type: 'string' } },
  };
  assert.deepEqual(filled(jsend, missing), { status: 'fail', message: '/id is required' });
});

test(
  'a filled value the schema refuses is left synthesized, the ' + 'others kept; a plain string schema is the message',
  () => {
    const schema = {
      type: 'object',
      required: ['message', 'code'],
      properties: { message: { type: 'string', maxLength: 5 }, code: { type: 'integer' } },
    };
    const body = filled(schema, missing);
    assert.equal(body.code, 400);
    assert.notEqual(body.message, missing.message);
    assert.equal(errorBody(tool, { type: 'string' }, missing, {}, 1), '/id is required');
  },
);

test("a free-form object schema gets the message, not made-up members; Jira's errorMessages the reasons", () => {
  assert.deepEqual(filled({ type: 'object' }, missing), { message: '/id is required' });
  const jira = { type: 'object', properties: { errorMessages: { type: 'array', items: { type: 'string' } } } };
  assert.deepEqual(filled(jira, missing).errorMessages, ['/id is required']);
});

test('a schema no body satisfies gives nothing: the caller keeps its problem', () => {
  const impossible = {
    allOf: [
      { type: 'object', required: ['a'], properties: { a: { type: 'string' } }, additionalProperties: false },
      { type: 'object', required: ['b'] },
    ],
  };
  assert.equal(errorBody(tool, impossible, missing, {}, 1), undefined);
});

test('the same reason, tool and seed give the same body', () => {
  const schema = {
    type: 'object',
    properties: { message: { type: 'string' }, request_id: { type: 'string' }, documentation_url: { type: 'string' } },
  };
  assert.deepEqual(filled(schema, limited), filled(schema, limited));
  assert.equal(filled(schema, limited).documentation_url, 'https://example.com/docs/errors/rate-limit');
});
