import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAjv } from '../../src/library/ajv.js';

test('a pattern with catastrophic backtracking validates a hostile string without hanging', () => {
  // Nested quantifiers: a native RegExp needs exponential time on a long string it does not match.
  const validate = createAjv().compile({
    type: 'string',
    pattern: '^(https?:\\/\\/)?([\\da-z.-]+)\\.([a-z.]{2,6})([\\/\\w .-]*)*\\/?$',
  });
  assert.equal(validate('https://example.com/a/b'), true);
  assert.equal(validate(`https://example.com/${'a/'.repeat(40)}!`), false);
});

test('standard and OpenAPI formats', () => {
  const validate = createAjv().compile({
    type: 'object',
    properties: { email: { type: 'string', format: 'email' }, n: { type: 'integer', format: 'int64' } },
  });
  assert.equal(validate({ email: 'a@b.co', n: 3 }), true);
  assert.equal(validate({ email: 'nope' }), false);
});
