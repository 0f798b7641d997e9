import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consistencyChecks } from '../../src/fidelity/consistency.js';
import { requestScalars } from '../../src/fidelity/fields.js';
import { sampleIds } from '../../src/fidelity/sample.js';
import type { ParamBinding, Tool, HttpMethod } from '../../src/library/tool.js';

function restTool(method: HttpMethod, path: string, bindings: Record<string, ParamBinding>): Tool {
  return {
    id: `t__${method}${path.replace(/\W/g, '_')}`,
    name: path,
    description: '',
    category: 'test',
    parameters: { type: 'object', properties: Object.fromEntries(Object.keys(bindings).map((k) => [k, {}])) },
    bindings,
    examples: [],
    origin: { format: 'openapi', api_id: 'test', method, path, operation_id: null, server: null },
  };
}

const path = (name: string): ParamBinding => ({ in: 'path', name });
const query = (name: string): ParamBinding => ({ in: 'query', name });
const body: ParamBinding = { in: 'body', name: '' };

test('username reaches login; a contradicting example is inconsistent', () => {
  const tool = restTool('get', '/users/{username}', { username: path('username') });
  const [check] = consistencyChecks(tool, { username: 'torvalds' }, { login: 'octocat', id: 583231 });
  assert.deepEqual(
    { rule: check!.rule, field: check!.field, got: check!.got, consistent: check!.consistent },
    { rule: 'synonym', field: '/login', got: 'octocat', consistent: false },
  );
  assert.equal(consistencyChecks(tool, { username: 'torvalds' }, { login: 'torvalds' })[0]!.consistent, true);
});

test('the addressed resource id is the record id; a parent id is not checked against child ids', () => {
  const pet = restTool('get', '/pets/{petId}', { petId: path('petId') });
  assert.deepEqual(
    consistencyChecks(pet, { petId: 7 }, { id: '7', name: 'Rex' }).map((c) => [c.rule, c.consistent]),
    [['resource_id', true]],
  );
  assert.equal(consistencyChecks(pet, { petId: 7 }, { id: 8 })[0]!.consistent, false);
  const actors = restTool('get', '/roles/{id}/actors', { id: path('id') });
  assert.deepEqual(consistencyChecks(actors, { id: 3 }, { actors: [{ id: 10 }, { id: 11 }] }), []);
  // A POST under a resource creates another one: its id is not the path's.
  const avatar = restTool('post', '/owner/{entityId}', { entityId: path('entityId') });
  assert.deepEqual(consistencyChecks(avatar, { entityId: 5 }, { id: 1000 }), []);
});

test(
  'issue_number reaches number, {owner}/{repo} full_name; a body echoes by the same name, nested fields at their ' +
    'place',
  () => {
    const issue = restTool('get', '/repos/{owner}/{repo}/issues/{issue_number}', {
      owner: path('owner'),
      repo: path('repo'),
      issue_number: path('issue_number'),
    });
    const checks = consistencyChecks(
      issue,
      { owner: 'o', repo: 'r', issue_number: 5 },
      { number: 5, full_name: 'o/x', name: 'an issue' },
    );
    assert.deepEqual(
      checks.map((c) => [c.rule, c.consistent]),
      [
        ['synonym', true],
        ['full_name', false],
      ],
    );

    const create = restTool('post', '/repos/{owner}/{repo}/issues', {
      owner: path('owner'),
      repo: path('repo'),
      payload: body,
    });
    const created = consistencyChecks(
      create,
      { owner: 'o', repo: 'r', payload: { body: 'It crashes', labels: { name: 'bug' } } },
      { body: 'Another body', labels: { name: 'bug' } },
    );
    assert.deepEqual(
      created.map((c) => [c.request, c.consistent]),
      [
        ['body', false],
        ['labels/name', true],
      ],
    );
    assert.deepEqual(
      requestScalars(create, { owner: 'o', repo: 'r', payload: { body: 'x' } }).map((s) => s.path),
      ['owner', 'repo', 'body'],
    );
  },
);

test('list filters are echoed in every item; a free-text query is contained in every item', () => {
  const list = restTool('get', '/pets', { status: query('status'), q: query('q') });
  const checks = consistencyChecks(list, { status: 'sold', q: 'rex' }, [
    { name: 'Rex', status: 'sold' },
    { name: 'T-Rex II', status: 'available' },
  ]);
  assert.deepEqual(
    checks.map((c) => [c.rule, c.consistent]),
    [
      ['name', false],
      ['search', true],
    ],
  );
  const wrapped = consistencyChecks(list, { q: 'rex' }, { data: [{ name: 'Rex' }, { name: 'Fido' }], total: 2 });
  assert.deepEqual(
    wrapped.map((c) => [c.rule, c.field, c.consistent]),
    [['search', '/data/1', false]],
  );
});

test('sampleIds: seeded, without repeats, all of a small list', () => {
  const ids = Array.from({ length: 100 }, (_, i) => `t${i}`);
  assert.deepEqual(sampleIds(ids, 10, 1), sampleIds(ids, 10, 1));
  assert.notDeepEqual(sampleIds(ids, 10, 1), sampleIds(ids, 10, 2));
  assert.equal(new Set(sampleIds(ids, 50, 3)).size, 50);
  assert.deepEqual([...sampleIds(ids, 500, 3)].sort(), [...ids].sort());
});
