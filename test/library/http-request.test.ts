import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHttpRequest } from '../../src/library/http-request.js';
import type { Tool } from '../../src/library/tool.js';
import { petstoreTools } from '../fixtures/tools.js';

const byId = (id: string) => petstoreTools.find((t) => t.id === id)!;

test('path, query, header and body arguments go where the bindings say', () => {
  assert.deepEqual(toHttpRequest(byId('petstore_test__getPetById'), { petId: 7, 'X-Request-Id': 'r 1' }), {
    method: 'GET',
    url: '/pets/7',
    headers: { 'X-Request-Id': 'r 1' },
  });
  assert.deepEqual(toHttpRequest(byId('petstore_test__listPets'), { limit: 3 }), {
    method: 'GET',
    url: '/pets?limit=3',
    headers: {},
  });
  assert.deepEqual(toHttpRequest(byId('petstore_test__addPet'), { name: 'Rex', status: 'new' }), {
    method: 'POST',
    url: '/pets',
    headers: {},
    body: { name: 'Rex', status: 'new' },
  });
});

test('tools without a REST shape have no HTTP request', () => {
  assert.equal(toHttpRequest(byId('weather_forecast'), { city: 'Oslo' }), undefined);
});

test('a disambiguating path suffix becomes a header or query value, never a fragment', () => {
  const base = byId('petstore_test__listPets');
  const target: Tool = {
    ...base,
    origin: { ...base.origin, path: '/#X-Amz-Target=Svc.ListThings', method: 'post' } as Tool['origin'],
  };
  assert.deepEqual(toHttpRequest(target, { limit: 2 }), {
    method: 'POST',
    url: '/?limit=2',
    headers: { 'X-Amz-Target': 'Svc.ListThings' },
  });
  const action: Tool = { ...base, origin: { ...base.origin, path: '/#Action=DescribeRegions' } as Tool['origin'] };
  assert.deepEqual(toHttpRequest(action, {}), { method: 'GET', url: '/?Action=DescribeRegions', headers: {} });
});

test('headers the client computes are not copied from arguments', () => {
  const base = byId('petstore_test__getPetById');
  const tool: Tool = {
    ...base,
    bindings: { ...base.bindings, 'Content-Length': { in: 'header', name: 'Content-Length' } },
  };
  assert.deepEqual(toHttpRequest(tool, { petId: 1, 'Content-Length': 10 })?.headers, {});
});
