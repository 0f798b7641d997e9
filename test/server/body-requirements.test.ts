/** Variants of one method and path told apart by their JSON bodies: what each body lacks of each variant's. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '../../src/library/tool.js';
import { missingBodyMembers } from '../../src/server/rest/body-requirements.js';

const patchTool = (member: string): Tool =>
  ({
    id: `tags_${member}`,
    parameters: {
      type: 'object',
      properties: {
        body: {
          type: 'array',
          items: { type: 'object', required: ['op', member], properties: { op: { type: 'string' } } },
        },
      },
      required: ['body'],
    },
    bindings: { body: { in: 'body', name: '' } },
  }) as unknown as Tool;

const memberTool = {
  id: 'create_template',
  parameters: {
    type: 'object',
    properties: {
      scope: { type: 'string' },
      fields: { type: 'array', items: { type: 'object', required: ['key'] } },
    },
    required: ['scope'],
  },
  bindings: { scope: { in: 'body', name: 'scope' }, fields: { in: 'body', name: 'fields' } },
} as unknown as Tool;

describe('missingBodyMembers', () => {
  it('counts what each item of a whole-body array lacks', () => {
    const removal = [
      { op: 'remove', key: 'a' },
      { op: 'remove', key: 'b' },
    ];
    assert.equal(missingBodyMembers(patchTool('key'), removal), 0);
    assert.equal(missingBodyMembers(patchTool('data'), removal), 2);
  });

  it('counts required members left out, and what present members lack inside', () => {
    assert.equal(missingBodyMembers(memberTool, { scope: 'enterprise', fields: [{ key: 'k' }, {}] }), 1);
    assert.equal(missingBodyMembers(memberTool, { fields: [] }), 1);
    assert.equal(missingBodyMembers(memberTool, undefined), 1);
  });
});
