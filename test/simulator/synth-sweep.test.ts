import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { synthesize } from '../../src/simulator/synth/index.js';
import { Rng } from '../../src/simulator/synth/random.js';
import { SchemaMaker } from './synth-schemas.js';

function toolFor(schema: JsonSchema, index: number): Tool {
  return {
    id: `sweep_${index}`,
    name: `sweep ${index}`,
    description: 'generated schema',
    category: 'test',
    parameters: { type: 'object', properties: {} },
    response_schema: schema,
    examples: [],
    origin: { format: 'openai', name: `sweep_${index}` },
  };
}

test('bodies for 3,000 generated schemas using every keyword family validate (≥ 99.9%)', (t) => {
  const rng = new Rng(20240601);
  const maker = new SchemaMaker(rng);
  const ajv = createAjv();
  const failures: { schema: JsonSchema; body: unknown; errors: unknown }[] = [];
  const total = 3000;
  for (let i = 0; i < total; i++) {
    const schema = maker.schema();
    const validate = ajv.compile(schema);
    const { body } = synthesize(toolFor(schema, i), { q: `case ${i}` }, i);
    if (!validate(body)) failures.push({ schema, body, errors: validate.errors });
    if (typeof schema === 'object') ajv.removeSchema(schema);
  }
  const rate = 1 - failures.length / total;
  t.diagnostic(`${total - failures.length} of ${total} valid`);
  assert.ok(
    rate >= 0.999,
    `valid ${(rate * 100).toFixed(2)}%; first failures: ` +
      `${JSON.stringify(failures.slice(0, 3), null, 1).slice(0, 4000)}`,
  );
});
