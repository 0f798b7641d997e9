import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMatches } from '../../src/graph/candidates.js';
import { toolFeatures } from '../../src/graph/features.js';
import { nounOf, singular, words } from '../../src/graph/names.js';
import { parsePath, pathNoun } from '../../src/graph/paths.js';
import type { JsonSchema, Tool, HttpMethod } from '../../src/library/tool.js';
import { petstoreTools } from '../fixtures/tools.js';

test('names split into words and nouns become singular', () => {
  assert.deepEqual(words('petId'), ['pet', 'id']);
  assert.deepEqual(words('PetID'), ['pet', 'id']);
  assert.deepEqual(words('X-Request-Id'), ['x', 'request', 'id']);
  assert.deepEqual(words('customer_account.ID'), ['customer', 'account', 'id']);
  assert.deepEqual(
    ['pets', 'categories', 'addresses', 'boxes', 'status', 'people', 'analyses', 'news', 'bus'].map(singular),
    ['pet', 'category', 'address', 'box', 'status', 'person', 'analysis', 'news', 'bus'],
  );
  assert.equal(nounOf(words('customer-accounts')), 'customeraccount');
  assert.equal(nounOf(words('powerForm')), nounOf(words('powerforms')));
});

test('a path says what it is about, skipping versions and actions', () => {
  assert.equal(pathNoun(parsePath('/v2/pets/{petId}/uploadImage')), 'pet');
  assert.equal(pathNoun(parsePath('/pets/findByStatus')), 'pet');
  assert.equal(pathNoun(parsePath('/api/users/{id}/repos.json')), 'repo');
  assert.equal(pathNoun(parsePath('/search')), undefined);
  assert.equal(pathNoun(parsePath('/users/me/calendarList')), 'calendarlist');
  assert.equal(pathNoun(parsePath('/customers/customerSearch')), 'customer');
  assert.equal(pathNoun(parsePath('/v1beta1/projects/{p}/Users/AuthenticateByName')), 'user');
});

const rest = (path: string, method: HttpMethod, extra: Partial<Tool>): Tool => ({
  id: `t_${method}_${path.replace(/\W+/g, '_')}`,
  name: `${method} ${path}`,
  description: '',
  category: 'test',
  parameters: { type: 'object', properties: {} },
  examples: [],
  origin: { format: 'openapi', api_id: 'x.test', method, path, operation_id: null, server: null },
  ...extra,
});

test(
  'inputs become keys: <resource>Id, a path {id} after its collection, ' +
    'a Stripe-style bare noun; headers and paging do not',
  () => {
    const f = toolFeatures(
      rest('/customers/{customer}/cards/{id}', 'post', {
        parameters: {
          type: 'object',
          required: ['customer', 'id', 'plan', 'limit', 'X-Account-Id', 'owner_id', 'parent_id'],
          properties: {
            customer: { type: 'string' },
            id: { type: 'string' },
            plan: { type: 'string' },
            limit: { type: 'integer' },
            'X-Account-Id': { type: 'string' },
            owner_id: { type: 'integer' },
            parent_id: { type: 'integer' },
            source_ids: { type: 'array', items: { type: 'string' } },
          },
        },
        bindings: {
          customer: { in: 'path', name: 'customer' },
          id: { in: 'path', name: 'id' },
          'X-Account-Id': { in: 'header', name: 'X-Account-Id' },
        },
      }),
    );
    const keys = Object.fromEntries(f.inputs.map((i) => [i.param, [i.key, i.required, i.bare]]));
    assert.deepEqual(keys, {
      customer: ['customer.id', true, false],
      id: ['card.id', true, false],
      plan: ['plan.id', true, true],
      owner_id: ['owner.id', true, false],
    });
    assert.deepEqual(f.addressed, ['customer', 'card']);
  },
);

test('outputs are keyed by the resource that owns them, and a tool does not produce what it must be given', () => {
  const [listPets, addPet, getPetById] = petstoreTools.map((t) => toolFeatures(t));
  assert.deepEqual(
    listPets!.outputs.filter((o) => o.key.endsWith('.id')).map((o) => [o.field, o.key, o.owned]),
    [
      ['[].id', 'pet.id', true],
      ['[].tags[].id', 'tag.id', false],
    ],
  );
  assert.ok(addPet!.outputs.some((o) => o.key === 'pet.id'));
  // The creation names the new pet itself, so `name` is no dependency.
  assert.deepEqual(addPet!.inputs, []);
  assert.deepEqual(
    getPetById!.inputs.map((i) => i.key),
    ['pet.id'],
  );
  assert.ok(!getPetById!.outputs.some((o) => o.key === 'pet.id'));
});

test('key matches stay inside one API, respect types, and skip keys too common to mean anything', () => {
  const producer = (api: string, idType: string, n = 0) =>
    toolFeatures({
      ...rest('/pets', 'get', {
        response_schema: { type: 'array', items: { type: 'object', properties: { id: { type: idType } } } },
      }),
      id: `list_${api}_${n}`,
      origin: { format: 'openapi', api_id: api, method: 'get', path: '/pets', operation_id: null, server: null },
    });
  const consumer = (api: string, n = 0) =>
    toolFeatures({
      ...rest('/pets/{petId}', 'get', {
        parameters: { type: 'object', required: ['petId'], properties: { petId: { type: 'integer' } } },
        bindings: { petId: { in: 'path', name: 'petId' } },
      }),
      id: `get_${api}_${n}`,
      origin: {
        format: 'openapi',
        api_id: api,
        method: 'get',
        path: '/pets/{petId}',
        operation_id: null,
        server: null,
      },
    });
  const pairs = (fs: ReturnType<typeof toolFeatures>[], limits = { maxConsumers: 150, maxProducers: 60 }) =>
    keyMatches(fs, 'api', limits).matches.map((m) => `${m.a.id}>${m.b.id}`);
  assert.deepEqual(pairs([producer('a', 'integer'), consumer('a'), consumer('b')]), ['list_a_0>get_a_0']);
  assert.deepEqual(pairs([producer('a', 'string'), consumer('a')]), []);
  const many = [producer('a', 'integer'), ...Array.from({ length: 5 }, (_, n) => consumer('a', n))];
  assert.equal(pairs(many).length, 5);
  const capped = keyMatches(many, 'api', { maxConsumers: 4, maxProducers: 60 });
  assert.deepEqual([capped.matches.length, capped.skipped], [0, ['a pet.id (1 × 5)']]);
});

test("wrappers keep their owner, named objects add a hop, and an order's items are not the order", () => {
  const f = toolFeatures(
    rest('/orders', 'get', {
      response_schema: {
        type: 'object',
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
                relationships: {
                  type: 'object',
                  properties: {
                    customer: {
                      type: 'object',
                      properties: { data: { type: 'object', properties: { id: { type: 'string' } } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }),
  );
  assert.deepEqual(
    f.outputs.filter((o) => o.key.endsWith('.id')).map((o) => [o.field, o.key, o.owned, o.hops]),
    [
      ['data[].id', 'order.id', true, 0],
      ['data[].relationships.customer.data.id', 'customer.id', false, 1],
    ],
  );
  const listed = toolFeatures(
    rest('/orders', 'get', {
      response_schema: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } },
      },
    }),
  );
  assert.deepEqual(
    listed.outputs.map((o) => [o.field, o.key, o.owned]),
    [['items[].id', 'order.id', true]],
  );
});

test(
  'collections under different owners do not match; ' + 'across APIs only owned fields under the same owner travel',
  () => {
    const tool = (api: string, method: HttpMethod, path: string, extra: Partial<Tool>) =>
      toolFeatures(
        {
          ...rest(path, method, extra),
          id: `${api}:${method} ${path}`,
          origin: { format: 'openapi', api_id: api, method, path, operation_id: null, server: null },
        },
        'vendor',
      );
    const registered = (api: string, parent: string) =>
      tool(api, 'post', `/organizers/{o}/${parent}/{w}/registrants`, {
        response_schema: { type: 'object', properties: { registrantKey: { type: 'integer' } } },
      });
    const fetch = (api: string, parent: string) =>
      tool(api, 'get', `/organizers/{o}/${parent}/{t}/registrants/{registrantKey}`, {
        parameters: { type: 'object', required: ['registrantKey'], properties: { registrantKey: { type: 'integer' } } },
        bindings: { registrantKey: { in: 'path', name: 'registrantKey' } },
      });
    const pairs = (fs: ReturnType<typeof toolFeatures>[], scope: 'api' | 'provider') =>
      keyMatches(fs, scope).matches.map((m) => `${m.a.id} > ${m.b.id}`);
    assert.deepEqual(pairs([registered('one', 'webinars'), fetch('one', 'trainings')], 'api'), []);
    assert.deepEqual(pairs([registered('one', 'webinars'), fetch('one', 'webinars')], 'api').length, 1);
    assert.deepEqual(pairs([registered('one', 'webinars'), fetch('two', 'trainings')], 'provider'), []);
    assert.deepEqual(pairs([registered('one', 'webinars'), fetch('two', 'webinars')], 'provider').length, 1);
  },
);

/** Tools of one API, each `[method, path, parameters (name → [type, where]), response]`. */
function api(tools: [HttpMethod, string, Record<string, [string, 'path' | 'query' | 'body']>, JsonSchema?][]) {
  return tools.map(([method, path, params, response]) =>
    toolFeatures({
      ...rest(path, method, {
        parameters: {
          type: 'object',
          required: Object.keys(params),
          properties: Object.fromEntries(Object.entries(params).map(([n, [type]]) => [n, { type }])),
        },
        bindings: Object.fromEntries(Object.entries(params).map(([n, [, where]]) => [n, { in: where, name: n }])),
        ...(response === undefined ? {} : { response_schema: response }),
      }),
      id: `${method} ${path}`,
    }),
  );
}
const pairsOf = (fs: ReturnType<typeof toolFeatures>[]) =>
  keyMatches(fs, 'api').matches.map((m) => `${m.a.id} > ${m.b.id}`);
const list = (props: Record<string, string>) => ({
  type: 'array',
  items: { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])) },
});

test('deletions feed nothing, and an update echoes the id it was called with', () => {
  assert.deepEqual(
    pairsOf(
      api([
        [
          'delete',
          '/expenses/{expense_id}',
          { expense_id: ['string', 'path'] },
          { type: 'object', properties: { company_id: { type: 'string' } } },
        ],
        [
          'patch',
          '/groups/{serviceGroupId}',
          { serviceGroupId: ['string', 'path'] },
          { type: 'object', properties: { id: { type: 'string' } } },
        ],
        ['get', '/companies/{company_id}', { company_id: ['string', 'path'] }],
        ['get', '/groups/{groupId}/keys', { groupId: ['string', 'path'] }],
      ]),
    ),
    [],
  );
});

test('a key needs a resource the API has paths for: display_name and created_by_id connect nothing', () => {
  const tools = api([
    ['get', '/users', {}, list({ display_name: 'string', created_by_id: 'string', id: 'string' })],
    ['post', '/messages', { display_name: ['string', 'body'], created_by_id: ['string', 'body'] }],
    ['get', '/users/{user_id}', { user_id: ['string', 'path'] }],
  ]);
  assert.deepEqual(pairsOf(tools), ['get /users > get /users/{user_id}']);
});

test("a form body's fields are inputs; sub-collections of different owners stay apart", () => {
  const form = toolFeatures({
    ...rest('/usergroups.disable', 'post', {
      parameters: {
        type: 'object',
        properties: {
          body: { type: 'object', required: ['usergroup'], properties: { usergroup: { type: 'string' } } },
        },
      },
      bindings: { body: { in: 'body', name: '' } },
    }),
  });
  assert.deepEqual(
    form.inputs.map((i) => [i.param, i.key, i.required, i.bare]),
    [['usergroup', 'usergroup.id', true, true]],
  );
  assert.deepEqual(
    pairsOf(
      api([
        [
          'get',
          '/apps/{owner}/{app}/groups',
          { owner: ['string', 'path'], app: ['string', 'path'] },
          list({ name: 'string' }),
        ],
        ['delete', '/orgs/{org}/groups/{group_name}', { org: ['string', 'path'], group_name: ['string', 'path'] }],
        [
          'get',
          '/apps/{owner}/{app}/groups/{group_name}',
          { owner: ['string', 'path'], app: ['string', 'path'], group_name: ['string', 'path'] },
        ],
      ]),
    ),
    ['get /apps/{owner}/{app}/groups > get /apps/{owner}/{app}/groups/{group_name}'],
  );
});
