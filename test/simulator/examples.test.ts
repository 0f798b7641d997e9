import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool, ToolExample } from '../../src/library/tool.js';
import { exampleNamed, examplesResponder, successExample } from '../../src/simulator/examples.js';
import { petstoreTools } from '../fixtures/tools.js';

const getPet = petstoreTools.find((tool) => tool.id === 'petstore_test__getPetById')!;
const listPets = petstoreTools.find((tool) => tool.id === 'petstore_test__listPets')!;

/** getPet with other examples; the response schema stays out of the way unless a test gives one. */
function withExamples(examples: ToolExample[], extra: Partial<Tool> = {}): Tool {
  return { ...getPet, examples, response_schema: undefined, ...extra };
}

test('a tool without examples gets no answer, so the next responder runs', async () => {
  assert.equal(await examplesResponder.respond(listPets, {}, { seed: 0 }), undefined);
  assert.equal(examplesResponder.name, 'example');
});

test('a tool with a success example answers it, as a copy', async () => {
  const answer = await examplesResponder.respond(getPet, { petId: 7 }, { seed: 0 });
  assert.deepEqual(answer, { status: 200, body: { id: 7, name: 'Rex', status: 'sold' } });
  (answer!.body as { name: string }).name = 'changed';
  assert.equal((getPet.examples[0]!.body as { name: string }).name, 'Rex');
});

test('exampleName picks that example whatever its status; an unknown name gets no answer', async () => {
  const tool = withExamples([
    { name: 'found', status: 200, body: { id: 1, name: 'A' } },
    { name: 'missing', status: 404, body: { message: 'Pet not found' } },
  ]);
  assert.deepEqual(await examplesResponder.respond(tool, {}, { seed: 0, exampleName: 'missing' }), {
    status: 404,
    body: { message: 'Pet not found' },
  });
  assert.deepEqual(await examplesResponder.respond(tool, {}, { seed: 0, exampleName: 'found' }), {
    status: 200,
    body: { id: 1, name: 'A' },
  });
  assert.equal(await examplesResponder.respond(tool, {}, { seed: 0, exampleName: 'nope' }), undefined);
  assert.equal(exampleNamed(tool, 'missing')?.status, 404);
});

test('without a name only success examples answer, the tool success status first', async () => {
  const errorsOnly = withExamples([{ name: 'missing', status: 404, body: { message: 'no' } }]);
  assert.equal(await examplesResponder.respond(errorsOnly, {}, { seed: 0 }), undefined);
  const created = withExamples(
    [
      { status: 200, body: { kind: 'ok' } },
      { status: 201, body: { kind: 'created' } },
    ],
    { response_status: 201 },
  );
  assert.deepEqual(await examplesResponder.respond(created, {}, { seed: 0 }), {
    status: 201,
    body: { kind: 'created' },
  });
  const otherSuccess = withExamples([{ status: 202, body: { kind: 'accepted' } }]);
  assert.deepEqual(await examplesResponder.respond(otherSuccess, {}, { seed: 0 }), {
    status: 202,
    body: { kind: 'accepted' },
  });
});

test('among several success examples the choice is deterministic per call and varies across calls', () => {
  const tool = withExamples(Array.from({ length: 4 }, (_, i) => ({ name: `e${i}`, status: 200, body: { i } })));
  const picks = new Set<string | undefined>();
  for (let petId = 0; petId < 40; petId++) {
    const first = successExample(tool, { petId }, 5);
    assert.equal(successExample(tool, { petId }, 5), first);
    picks.add(first?.name);
  }
  assert.ok(picks.size >= 3, `picked ${[...picks].join(', ')}`);
});

test(
  'an example the response schema refuses is repaired by ' + 'taking out undeclared members, else not served',
  async () => {
    const closed = {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer' },
        tags: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' } } },
        },
      },
    };
    const extra = withExamples([{ status: 200, body: { id: 1, color: 'red', tags: [{ name: 'a', colour: 'x' }] } }], {
      response_schema: closed,
    });
    assert.deepEqual(await examplesResponder.respond(extra, {}, { seed: 0 }), {
      status: 200,
      body: { id: 1, tags: [{ name: 'a' }] },
    });
    // The record keeps the example as the document wrote it.
    assert.deepEqual(extra.examples[0]!.body, { id: 1, color: 'red', tags: [{ name: 'a', colour: 'x' }] });
    const missing = withExamples([{ status: 200, body: { tags: [] } }], { response_schema: closed });
    assert.equal(await examplesResponder.respond(missing, {}, { seed: 0 }), undefined);
    const wrongType = withExamples([{ status: 200, body: { id: 'one' } }], { response_schema: closed });
    assert.equal(await examplesResponder.respond(wrongType, {}, { seed: 0 }), undefined);
    // Asked for by name, an example is served as the document wrote it.
    const named = withExamples([{ name: 'raw', status: 200, body: { id: 'one' } }], { response_schema: closed });
    assert.deepEqual(await examplesResponder.respond(named, {}, { seed: 0, exampleName: 'raw' }), {
      status: 200,
      body: { id: 'one' },
    });
  },
);
