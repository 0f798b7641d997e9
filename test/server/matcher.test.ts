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
  {
    id: 'page',
    method: 'get',
    path: '/pages/{pageName}{mediaTypeExtension}',
    values: { mediaTypeExtension: ['.json'] },
  },
  { id: 'raw', method: 'get', path: '/raw/{name}{suffix}' },
]);

function request(method: string, path: string, has: Record<string, string> = {}): RouteRequest {
  const trailingSlash = path.length > 1 && path.endsWith('/');
  const segments = (trailingSlash ? path.slice(0, -1) : path)
    .split('/')
    .slice(1)
    .filter((s, _i, all) => !(all.length === 1 && s === ''));
  return {
    method,
    segments,
    trailingSlash,
    has: (name, value) => name in has && (value === undefined || has[name] === value),
  };
}

describe('REST route matching', () => {
  it('splits touching parameters so the later one takes one of its enum values', () => {
    assert.deepEqual(matchRoute(routes, request('GET', '/pages/about.json')), {
      kind: 'operation',
      id: 'page',
      params: { pageName: 'about', mediaTypeExtension: '.json' },
    });
    // Without an enum the earlier parameter takes all it can, as before.
    assert.deepEqual(matchRoute(routes, request('GET', '/raw/about.json')), {
      kind: 'operation',
      id: 'raw',
      params: { name: 'about.jso', suffix: 'n' },
    });
  });

  it('matches templates and extracts parameters', () => {
    assert.deepEqual(matchRoute(routes, request('GET', '/pets/12')), {
      kind: 'operation',
      id: 'getPet',
      params: { petId: '12' },
    });
    assert.deepEqual(matchRoute(routes, request('DELETE', '/pets/12')), {
      kind: 'operation',
      id: 'deletePet',
      params: { petId: '12' },
    });
    assert.deepEqual(matchRoute(routes, request('GET', '/files/my-lib-1.2.zip')), {
      kind: 'operation',
      id: 'archive',
      params: { name: 'my-lib', version: '1.2' },
    });
  });

  it('prefers concrete segments over templates', () => {
    assert.deepEqual(matchRoute(routes, request('GET', '/pets/mine')), { kind: 'operation', id: 'myPets', params: {} });
    // DELETE /pets/mine has no concrete operation: the template takes it.
    assert.deepEqual(matchRoute(routes, request('DELETE', '/pets/mine')), {
      kind: 'operation',
      id: 'deletePet',
      params: { petId: 'mine' },
    });
  });

  it('reports 405 with the allowed methods, HEAD with GET', () => {
    assert.deepEqual(matchRoute(routes, request('PATCH', '/pets/1')), {
      kind: 'method-not-allowed',
      allow: ['DELETE', 'GET', 'HEAD'],
    });
    assert.deepEqual(matchRoute(routes, request('HEAD', '/pets/1')), {
      kind: 'operation',
      id: 'getPet',
      params: { petId: '1' },
    });
    assert.deepEqual(matchRoute(routes, request('HEAD', '/probe')), { kind: 'operation', id: 'headOnly', params: {} });
    assert.deepEqual(matchRoute(routes, request('GET', '/nothing/here')), { kind: 'no-path' });
  });

  it('treats trailing slashes as the same path, preferring the declared form', () => {
    assert.equal((matchRoute(routes, request('GET', '/backup/plans')) as { id: string }).id, 'plans');
    assert.equal((matchRoute(routes, request('GET', '/pets/')) as { id: string }).id, 'listPets');
  });

  it('tells operations sharing a path apart by fixed header or query values', () => {
    assert.equal(
      (matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.List' })) as { id: string }).id,
      'list',
    );
    assert.equal(
      (matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.Send' })) as { id: string }).id,
      'send',
    );
    assert.deepEqual(matchRoute(routes, request('POST', '/', { 'X-Amz-Target': 'Queue.Other' })), {
      kind: 'unmet-conditions',
      conditions: ['X-Amz-Target=Queue.Send', 'X-Amz-Target=Queue.List'],
    });
    assert.equal((matchRoute(routes, request('GET', '/', { Action: 'Describe' })) as { id: string }).id, 'describe');
    assert.equal((matchRoute(routes, request('GET', '/')) as { id: string }).id, 'root');
  });

  it('ranks by presence suffixes without requiring them, templated query keys included', () => {
    assert.equal((matchRoute(routes, request('DELETE', '/tags/arn1', { tagKeys: 'a' })) as { id: string }).id, 'untag');
    assert.equal((matchRoute(routes, request('DELETE', '/tags/arn1')) as { id: string }).id, 'untagAll');
    assert.equal((matchRoute(routes, request('GET', '/fax/history')) as { id: string }).id, 'history');
  });

  it('tells operations that differ only by templated query keys apart by the keys the request carries', () => {
    // weatherbit.io: twelve operations at GET /current, one per way of naming the place.
    const weather = compileRoutes([
      { id: 'cities', method: 'get', path: '/current?cities={cities}' },
      { id: 'cityCountry', method: 'get', path: '/current?city={city}&country={country}' },
      { id: 'latLon', method: 'get', path: '/current?lat={lat}&lon={lon}' },
      { id: 'postal', method: 'get', path: '/current?postal_code={postal_code}' },
      { id: 'daily', method: 'get', path: '/forecast/daily?lat={lat}&lon={lon}' },
      { id: 'dailyCity', method: 'get', path: '/forecast/daily?city={city}&country={country}' },
    ]);
    const id = (path: string, has: Record<string, string>) =>
      (matchRoute(weather, request('GET', path, has)) as { id: string }).id;
    assert.equal(id('/current', { lat: '35.78', lon: '-78.64', key: 'abc' }), 'latLon');
    assert.equal(id('/current', { city: 'Raleigh', country: 'US', key: 'abc' }), 'cityCountry');
    assert.equal(id('/current', { postal_code: '27601' }), 'postal');
    assert.equal(id('/current', { cities: '1,2' }), 'cities');
    assert.equal(id('/forecast/daily', { lat: '1', lon: '2' }), 'daily');
    assert.equal(id('/forecast/daily', { city: 'Rome', country: 'IT' }), 'dailyCity');
  });

  it('tells variants of one path apart by the required parameters the request lacks', () => {
    const variants = compileRoutes([
      { id: 'byName', method: 'get', path: '/search' },
      { id: 'byGeo', method: 'get', path: '/search' },
    ]);
    const required: Record<string, string[]> = { byName: ['q'], byGeo: ['lat', 'lon'] };
    const route = (has: Record<string, string>) => {
      const base = request('GET', '/search', has);
      return (
        matchRoute(variants, {
          ...base,
          missingRequired: (id) => required[id]!.filter((name) => !(name in has)).length,
        }) as { id: string }
      ).id;
    };
    assert.equal(route({ lat: '1', lon: '2' }), 'byGeo');
    assert.equal(route({ q: 'pizza' }), 'byName');
    assert.equal(route({}), 'byName', 'a tie keeps the declared order');
  });

  it('splits templated segments as a greedy regular expression would', () => {
    const templates = ['{a}.{b}', '{a}{b}', 'x{a}-{b}-{c}y', '{a}..{b}', "f(a='{a}',b='{b}')", '{a}'];
    const alphabet = ['a', '.', '-', 'x', 'y', "'", ',', '(', ')', '='];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const template of templates) {
      const compiled = compileRoutes([{ id: 'op', method: 'get', path: `/${template}` }]);
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const reference = new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('(.+)')}$`,
        's',
      );
      for (let n = 0; n < 400; n++) {
        const text = Array.from(
          { length: 1 + Math.floor(random() * 12) },
          () => alphabet[Math.floor(random() * alphabet.length)],
        ).join('');
        const expected = reference.exec(text);
        const got = matchRoute(compiled, { method: 'GET', segments: [text], trailingSlash: false, has: () => false });
        if (!expected) assert.equal(got.kind, 'no-path', `${template} on ${JSON.stringify(text)}`);
        else
          assert.deepEqual(
            got,
            {
              kind: 'operation',
              id: 'op',
              params: Object.fromEntries(names.map((name, k) => [name, expected[k + 1]])),
            },
            `${template} on ${JSON.stringify(text)}`,
          );
      }
    }
  });

  it('matches a long segment of several parameters in linear time (Microsoft Graph reports)', () => {
    const graph = compileRoutes([
      {
        id: 'summary',
        method: 'get',
        path: "/reports/getSummary(skip={skip},top={top},filter='{filter}',skipToken='{skipToken}')",
      },
    ]);
    const almost = `getSummary(skip=${"1,top=1,filter='".repeat(400)}skipToken='x')`;
    const started = performance.now();
    assert.equal(
      matchRoute(graph, { method: 'GET', segments: ['reports', almost], trailingSlash: false, has: () => false }).kind,
      'no-path',
    );
    const hit = matchRoute(graph, {
      method: 'GET',
      segments: ['reports', "getSummary(skip=1,top=2,filter='a,b',skipToken='t')"],
      trailingSlash: false,
      has: () => false,
    });
    assert.deepEqual(hit, {
      kind: 'operation',
      id: 'summary',
      params: { skip: '1', top: '2', filter: 'a,b', skipToken: 't' },
    });
    // The regular expressions took 6 s on such a URL; a bound far above linear time, far below that.
    assert.ok(performance.now() - started < 500, `took ${performance.now() - started} ms`);
  });
});
