/**
 * Response schemas cut at conversion are expanded from the API's document where an answer goes that deep, so that
 * bodies validate against the document the REST surface serves (Stripe's invoices answered `lines.data` as strings
 * when the tool's schema stopped there).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import { documentTools } from '../../src/library/openapi/operations.js';
import { CUT_KEYWORD } from '../../src/library/openapi/schema.js';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { librarySynthResponder } from '../../src/simulator/synth/responder.js';
import { synthesize } from '../../src/simulator/synth/index.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

const API = 'deep.test';
/** A 3.1 document, so that its schemas are JSON Schema 2020-12 as they stand and ajv reads the document itself. */
const document = {
  openapi: '3.1.0',
  info: { title: 'Deep', version: '1' },
  paths: {
    '/invoices/{id}': {
      get: {
        operationId: 'getInvoice',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'an invoice',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Invoice' } } },
          },
        },
      },
    },
    '/trees': {
      get: {
        operationId: 'getTree',
        responses: { '200': { $ref: '#/components/responses/Tree' } },
      },
    },
  },
  components: {
    responses: {
      Tree: {
        description: 'a tree',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['root'],
              properties: { root: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      },
    },
    schemas: {
      Invoice: {
        type: 'object',
        required: ['id', 'lines'],
        properties: {
          id: { type: 'string' },
          lines: {
            type: 'object',
            required: ['data', 'object'],
            properties: {
              object: { const: 'list' },
              data: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Line' } },
            },
          },
        },
      },
      Line: {
        type: 'object',
        required: ['id', 'amount', 'period'],
        properties: {
          id: { type: 'string', pattern: '^il_[a-z0-9]{8}$' },
          amount: { type: 'integer', minimum: 0 },
          period: {
            type: 'object',
            required: ['start', 'end'],
            properties: { start: { type: 'integer' }, end: { type: 'integer' } },
          },
        },
      },
      Node: {
        type: 'object',
        required: ['value', 'children'],
        properties: {
          value: { type: 'integer', enum: [1, 2, 3] },
          children: { type: 'array', maxItems: 2, items: { $ref: '#/components/schemas/Node' } },
        },
      },
    },
  },
};

/** The document's tools as a shallow build cuts them: two levels of nesting kept, the rest placeholders. */
function shallowTools(): Tool[] {
  return documentTools({
    apiId: API,
    title: 'Deep',
    category: 'financial',
    document,
    dialect: '3.1',
    limits: { maxDepth: 2, maxNodes: 300 },
  });
}

function validator(operation: string) {
  const ajv = createAjv();
  ajv.addSchema({ $id: 'https://deep.test/doc', components: document.components });
  const schema =
    operation === 'getInvoice'
      ? { $ref: 'https://deep.test/doc#/components/schemas/Invoice' }
      : { $ref: 'https://deep.test/doc#/components/responses/Tree/content/application~1json/schema' };
  return ajv.compile(schema);
}

function cuts(schema: JsonSchema, found: string[] = []): string[] {
  if (typeof schema !== 'object') return found;
  if (typeof schema[CUT_KEYWORD] === 'string') found.push(schema[CUT_KEYWORD] as string);
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) for (const item of value) cuts(item as JsonSchema, found);
    else if (value && typeof value === 'object') cuts(value as JsonSchema, found);
  }
  return found;
}

test('a response placeholder names the node of the document it stands for; request schemas carry no marks', () => {
  const [invoice, tree] = shallowTools();
  assert.deepEqual(cuts(invoice!.response_schema!), ['#/components/schemas/Line']);
  // Under a response object's $ref, the pointer goes through the named response; the recursion is cut at the ref.
  assert.deepEqual(cuts(tree!.response_schema!), ['#/components/schemas/Node']);
  assert.deepEqual(cuts(invoice!.parameters), []);
});

test('answers expand the cut parts from the document and validate against it at any depth', async () => {
  const tools = shallowTools();
  const library = writeFixtureLibrary(tools, [
    { api_id: API, title: 'Deep', provider: 'deep.test', category: 'financial', format: 'openapi', document },
  ]);
  const synth = librarySynthResponder(library);
  for (const tool of tools) {
    const validate = validator(tool.origin.format === 'openapi' ? tool.origin.operation_id! : '');
    let unexpandedFailures = 0;
    for (let seed = 0; seed < 20; seed++) {
      const args = tool.id.endsWith('getInvoice') ? { id: `in_${seed}` } : {};
      const answer = await synth.respond(tool, args, { seed });
      assert.ok(validate(answer!.body), `${tool.id} seed ${seed}: ${JSON.stringify(validate.errors?.[0])}`);
      // The same call without the document: the placeholder's free-form value is what the document rejects.
      if (!validate(synthesize(tool, args, seed).body)) unexpandedFailures++;
    }
    assert.ok(unexpandedFailures > 0, `${tool.id}: the cut schema alone never failed, so this test proves nothing`);
  }
});
