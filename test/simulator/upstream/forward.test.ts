/** The parts of forwarding that need no server: the request a call becomes, base URLs, credentials, the answer diff. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Tool } from '../../../src/library/tool.js';
import { baseUrl, readUpstreamMap, UpstreamMapError } from '../../../src/simulator/upstream/base-urls.js';
import { apiKeySlots, callerCredentials, forwardedCredentials } from '../../../src/simulator/upstream/credentials.js';
import { answerDiff } from '../../../src/simulator/upstream/diff.js';
import { forwardRequest } from '../../../src/simulator/upstream/forward.js';
import { petstoreTools, tempDir } from '../../fixtures/tools.js';

const tool = (id: string) => petstoreTools.find((t) => t.id === id)!;
const none = { headers: {}, query: [] as [string, string][] };

const formTool: Tool = {
  ...tool('petstore_test__addPet'),
  parameters: {
    type: 'object',
    properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  },
  bindings: { name: { in: 'body', name: 'name' }, tags: { in: 'body', name: 'tags' } },
};

test('a call becomes its real request on the base URL: path, query, headers, a JSON or form body', async () => {
  const get = forwardRequest(
    tool('petstore_test__getPetById'),
    { petId: 7, 'X-Request-Id': 'r1' },
    'http://127.0.0.1:9/v1/',
    undefined,
    none,
  );
  assert.equal(get.method, 'GET');
  assert.equal(get.url, 'http://127.0.0.1:9/v1/pets/7');
  assert.equal(get.headers['x-request-id'], 'r1');
  assert.equal(get.body, undefined);

  const list = forwardRequest(tool('petstore_test__listPets'), { limit: 5 }, 'https://api.test', undefined, {
    headers: { authorization: 'Bearer t' },
    query: [['api_key', 'k']],
  });
  assert.equal(list.url, 'https://api.test/pets?limit=5&api_key=k');
  assert.equal(list.headers.authorization, 'Bearer t');

  const json = forwardRequest(
    tool('petstore_test__addPet'),
    { name: 'Tom' },
    'https://api.test',
    'application/json',
    none,
  );
  assert.equal(json.body, '{"name":"Tom"}');
  assert.equal(json.headers['content-type'], 'application/json');

  const form = forwardRequest(
    formTool,
    { name: 'Tom', tags: ['a', 'b'] },
    'https://api.test',
    'application/x-www-form-urlencoded',
    none,
  );
  assert.ok(form.body instanceof URLSearchParams);
  assert.equal(form.body.toString(), 'name=Tom&tags=a&tags=b');
  const multipart = forwardRequest(formTool, { name: 'Tom' }, 'https://api.test', 'multipart/form-data', none);
  assert.ok(multipart.body instanceof FormData);
  assert.equal(multipart.body.get('name'), 'Tom');
});

test('base URLs: a map entry (exact id or glob, first match) over the spec server; a relative server needs one', () => {
  const dir = tempDir('toolenv-map-');
  const file = join(dir, 'map.json');
  writeFileSync(file, JSON.stringify({ 'other.test': 'http://a', 'pet*.test': 'http://b', '*': 'http://c' }));
  const map = readUpstreamMap(file);
  assert.deepEqual(baseUrl(tool('petstore_test__listPets'), map), { url: 'http://b' });
  assert.deepEqual(baseUrl(tool('petstore_test__listPets'), undefined), { url: 'https://petstore.test/v1' });
  const relative = {
    ...tool('petstore_test__listPets'),
    origin: { ...tool('petstore_test__listPets').origin, server: '//api.petstore.test' },
  } as Tool;
  assert.deepEqual(baseUrl(relative, undefined), { url: 'https://api.petstore.test' });
  const noServer = { ...relative, origin: { ...relative.origin, server: null } } as Tool;
  assert.match(
    (baseUrl(noServer, undefined) as { reason: string }).reason,
    /declares no server URL; map "petstore.test"/,
  );
  assert.match((baseUrl(tool('weather_forecast'), map) as { reason: string }).reason, /imported from openai/);

  writeFileSync(file, '["not", "an", "object"]');
  assert.throws(() => readUpstreamMap(file), UpstreamMapError);
  assert.throws(() => readUpstreamMap(join(dir, 'missing.json')), /no such file/);
});

test("credentials: Authorization unless it is ToolEnv's key, the declared API keys, never x-toolenv-*", () => {
  const slots = apiKeySlots({
    components: {
      securitySchemes: {
        a: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        b: { type: 'apiKey', in: 'query', name: 'key' },
        c: { type: 'oauth2' },
      },
    },
  });
  assert.deepEqual(slots, [
    { in: 'header', name: 'X-Api-Key' },
    { in: 'query', name: 'key' },
  ]);
  const headers: Record<string, string> = {
    authorization: 'Bearer theirs',
    'x-api-key': 'h',
    'x-toolenv-key': 'ours',
    'x-other': 'o',
  };
  const theirs = callerCredentials(
    (name) => headers[name],
    (name) => (name === 'key' ? 'q' : undefined),
    () => false,
  );
  assert.deepEqual(forwardedCredentials(theirs, slots), {
    headers: { authorization: 'Bearer theirs', 'x-api-key': 'h' },
    query: [['key', 'q']],
  });
  const ours = callerCredentials(
    (name) => headers[name],
    () => undefined,
    () => true,
  );
  assert.deepEqual(forwardedCredentials(ours, slots), { headers: { 'x-api-key': 'h' }, query: [] });
  assert.equal(ours.header('x-toolenv-key'), undefined);
  assert.deepEqual(forwardedCredentials(undefined, slots), { headers: {}, query: [] });
});

test('the answer diff: status, missing and extra fields, type mismatches (integers are numbers, null agrees)', () => {
  const diff = answerDiff(
    { status: 200, body: { id: 1, name: 'a', price: 1.5, tags: [{ id: 1 }], owner: null, count: '3' } },
    {
      status: 201,
      body: { id: 2, price: 2, tags: [{ id: 1, label: 'x' }], owner: { login: 'o' }, count: 3, extra: true },
    },
  );
  assert.equal(diff.status_match, false);
  assert.deepEqual(diff.missing, ['/name']);
  assert.deepEqual(diff.extra, ['/tags/*/label', '/owner/login', '/extra']);
  assert.deepEqual(diff.type_mismatches, [{ path: '/count', real: ['string'], simulated: ['integer'] }]);
});
