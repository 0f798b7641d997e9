import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRoutes, matchRoute, type RouteRequest } from '../../src/server/rest/matcher.js';

const routes = compileRoutes([
  { id: 'listPets', method: 'get', path: '/pets' },
  { id: 'getPet', method: 'get', path: '/pets/{petId}' },
  { id: 'deletePet', method: 'delete', path: '/pets/{petId}' },
  { id: 'myPets', method: 'get', path: '/pets/mine' },
  { id: 'archive', method: 'get', path: '/files/{name}-{version}.zip' },
  { id: 'plans', method: 'get', path: '/backup/plans/' },
  { id: 'send', method: 'post', path: '/#X-Amz-Target=Queue.Send' },
  { id: 'list', method: 'post', path: '/#X-Amz-Target=Queue.List' },
  { id: 'describe', method: 'get', path: '/?Action=Describe' },
  { id: 'untag', method: 'delete', path: '/tags/{arn}#tagKeys' },
  { id: 'untagAll', method: 'delete', path: '/tags/{arn}' },
  { id: 'history', method: 'get', path: '/fax/history?date_from={date_from}&date_to={date_to}' },
  { id: 'headOnly', method: 'head', path: '/probe' },
  { id: 'root', method: 'get', path: '/' },
]);

function request(method: string, path: string, has: Record<string, string> = {}): RouteRequest {
  const trailingSlash = path.length > 1 && path.endsWith('/');
  const segments = (trailingSlash ? path.slice(0, -1) : path).split('/').slice(1).filter((s, i, all) => !(all.length === 1 && s === ''));
  return { method, segments, trailingSlash, has: (name, value) => name in has && (value === undefined || has[name] === value) };
}

describe('REST route matching', () => {
  it('matches templates and extracts parameters', () => {
    assert.deepEqual(matchRoute(routes, request('GET', '/pets/12')), { kind: 'operation', id: 'getPet', params: { petId: '12' } });
    assert.deepEqual(matchRoute(routes, request('DELETE', '/pets/12')), { kind: 'operation', id: 'deletePet', params: { petId: '12' } });
    assert.deepEqual(matchRoute(routes, request('GET', '/files/my-lib-1.2.zip')), { kind: 'operation', id: 'archive', params: { name: 'my-lib', version: '1.2' } });
  });

  it('prefers concrete segments over templates', () => {
    assert.deepEqual(matchRoute(routes, request('GET', '/pets/mine')), { kind: 'operation', id: 'myPets', params: {} });
    // DELETE /pets/mine has no concrete operation: the template takes it.
    assert.deepEqual(matchRoute(routes, request('DELETE', '/pets/mine')), { kind: 'operation', id: 'deletePet', params: { petId: 'mine' } });
  });

  it('reports 405 with the allowed methods, HEAD with GET', () => {
    assert.deepEqual(matchRoute(routes, request('PATCH', '/pets/1')), { kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] });
    assert.deepEqual(matchRoute(routes, request('HEAD', '/pets/1')), { kind: 'operation', id: 'getPet', params: { petId: '1' } });
    assert.deepEqual(matchRoute(routes, request('HEAD', '/probe')), { kind: 'operation', id: 'headOnly', params: {} });
    assert.deepEqual(matchRoute(routes, request('GET', '/nothing/here')), { kind: 'no-path' });
  });

  it('treats trailing slashes as the same path, preferring the declared form', () => {
    assert.equal((matchRoute(routes, request('GET', '/backup/plans')) as { id: string }).id, 'plans');
    assert.equal((matchRoute(routes, request('GET', '/pets/')) as { id: string }).id, 'listPets');
  });

  it('tells operations sharing a path apart by fixed header or query values', () => {
    assert.equal((matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.List' })) as { id: string }).id, 'list');
    assert.equal((matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.Send' })) as { id: string }).id, 'send');
    assert.deepEqual(matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.Other' })), {
      kind: 'unmet-conditions',
      conditions: ['X-Amz-Target=Queue.Send', 'X-Amz-Target=Queue.List'],
    });
    assert.equal((matchRoute(routes, request('GET', '/', { Action: 'Describe' })) as { id: string }).id, 'describe');
    assert.equal((matchRoute(routes, request('GET', '/')) as { id: string }).id, 'root');
  });

  it('ranks by presence suffixes without requiring them; templated query suffixes are plain parameters', () => {
    assert.equal((matchRoute(routes, request('DELETE', '/tags/arn1', { tagKeys: 'a' })) as { id: string }).id, 'untag');
    assert.equal((matchRoute(routes, request('DELETE', '/tags/arn1')) as { id: string }).id, 'untagAll');
    assert.equal((matchRoute(routes, request('GET', '/fax/history')) as { id: string }).id, 'history');
  });
});
