import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePythonLiteral } from '../../src/simulator/pyliteral.js';
import { changeName, standardize, standardizeCategory } from '../../src/simulator/stablebench.js';

test('Python reprs and JSON both read as JSON values', () => {
  assert.deepEqual(parsePythonLiteral("{'q': 'London', 'n': 3, 'x': -1.5e-3, 'ok': True, 'no': False, 'none': None}"), {
    q: 'London',
    n: 3,
    x: -0.0015,
    ok: true,
    no: false,
    none: null,
  });
  assert.deepEqual(parsePythonLiteral("{'q': \"O'Hare\", 'l': [1, (2, 3)], 'd': {}}"), {
    q: "O'Hare",
    l: [1, [2, 3]],
    d: {},
  });
  assert.deepEqual(parsePythonLiteral('{"a": [true, false, null], "b": "\\u00e9\\n"}'), {
    a: [true, false, null],
    b: 'é\n',
  });
  assert.equal(parsePythonLiteral("'tab\\there \\x41\\101 \\U0001F600 \\d'"), 'tab\there AA 😀 \\d');
  assert.equal(parsePythonLiteral("u'unicode'"), 'unicode');
  assert.deepEqual(parsePythonLiteral("{1: 'one', 'trailing': [1, 2,],}"), { 1: 'one', trailing: [1, 2] });
  const proto = parsePythonLiteral("{'__proto__': {'polluted': True}}") as Record<string, unknown>;
  assert.deepEqual(Object.keys(proto), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  for (const bad of ["{'a': }", "{'a' 1}", "'unterminated", '{1: 2} extra', 'nan', "{['list']: 1}", '']) {
    assert.throws(() => parsePythonLiteral(bad), SyntaxError, bad);
  }
});

test('names are standardized as ToolBench does', () => {
  assert.equal(standardize('WeatherAPI.com'), 'weatherapi_com');
  assert.equal(standardize('Current Air Quality (by lat/lon)'), 'current_air_quality_by_lat_lon');
  assert.equal(standardize('Air Quality.io — Ñandú Edition'), 'air_quality_io_and_edition');
  assert.equal(standardize('2Captcha'), 'get_2captcha');
  assert.equal(standardize('天气 API'), '天气_api');
  assert.equal(standardize('__a^b__'), 'a^b');
  assert.equal(changeName('id'), 'is_id');
  assert.equal(changeName('ids'), 'ids');
  assert.equal(standardizeCategory('News, Media'), 'News_Media');
  assert.equal(standardizeCategory('Video, Images'), 'Video_Images');
  assert.equal(standardizeCategory('Health and Fitness'), 'Health_and_Fitness');
});
