import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAjv } from '../../src/library/ajv.js';
import { synthesizeChecked } from '../../src/simulator/synth/index.js';
import { petstoreTools } from '../fixtures/tools.js';

const ajv = createAjv();

test('int32 and int64 bound integers as the APIs’ own types do; float and binary formats constrain nothing', () => {
  const int32 = ajv.compile({ type: 'integer', format: 'int32' });
  assert.equal(int32(2 ** 31 - 1), true);
  assert.equal(int32(2 ** 31), false);
  assert.equal(int32(-(2 ** 31)), true);
  assert.equal(int32(-(2 ** 31) - 1), false);
  const int64 = ajv.compile({ type: 'integer', format: 'int64' });
  assert.equal(int64(2 ** 53 + 2), true, 'an int64 id past 2^53, as JSON reads it');
  assert.equal(int64(2 ** 64), false);
  // On a string the integer formats check nothing (a string-encoded int64 is common).
  assert.equal(ajv.compile({ type: 'string', format: 'int64' })('12345678901234567890123'), true);
  assert.equal(ajv.compile({ type: 'number', format: 'double' })(1e308), true);
});

test('the synthesizer draws an int32 within its range, where the schema’s own bounds leave room past it', () => {
  const counter = {
    type: 'object',
    required: ['count'],
    properties: { count: { type: 'integer', format: 'int32', minimum: 2 ** 31 - 5 } },
  };
  const tool = { ...petstoreTools[0]!, response_schema: counter };
  for (let seed = 0; seed < 20; seed++) {
    const answer = synthesizeChecked(tool, {}, seed);
    const count = (answer.body as { count: number }).count;
    assert.ok(count >= 2 ** 31 - 5 && count <= 2 ** 31 - 1, String(count));
    assert.equal(answer.satisfied, true);
  }
});
