import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportError } from '../../src/library/importers/errors.js';
import { readImport } from '../../src/library/importers/index.js';
import { convertOpenai } from '../../src/library/importers/openai.js';
import { isValidId } from '../../src/library/ids.js';
import { openaiFunctions, openaiTools, writeSources } from '../fixtures/import-sources.js';

test('bare function specs and {type: "function", function} tools both import', async () => {
  const dir = writeSources({ 'functions.json': openaiFunctions, 'tools.json': openaiTools });
  const { batch, files } = await readImport(dir, 'openai');
  assert.equal(files, 2);
  assert.deepEqual(
    batch.tools.map((t) => [t.id, t.name]),
    [
      ['get_current_weather', 'get_current_weather'],
      ['search_flights', 'search_flights'],
      ['get_server_time', 'get_server_time'],
      ['book_hotel_room', 'book hotel.room'],
    ],
  );
  const [weather, flights, time, hotel] = batch.tools;
  assert.deepEqual(weather!.parameters, openaiFunctions[0]!.parameters);
  assert.equal(weather!.category, 'location');
  assert.equal(flights!.category, 'transport');
  assert.deepEqual(flights!.parameters, openaiTools.tools[0]!.function.parameters);
  assert.deepEqual(time!.parameters, { type: 'object', properties: {} }, 'no parameters: a function without arguments');
  assert.equal(hotel!.description, 'Book hotel room', 'no description: made from the name');
  assert.deepEqual(hotel!.origin, { format: 'openai', name: 'book hotel.room' });
  for (const tool of batch.tools) {
    assert.ok(isValidId(tool.id));
    assert.equal(tool.response_schema, undefined);
  }
  assert.deepEqual(
    batch.apis.map((a) => a.api_id),
    ['openai__functions', 'openai__tools'],
  );
});

test('every accepted wrapper reads the same specs', () => {
  const expected = convertOpenai(openaiFunctions, 'f.json').tools;
  assert.deepEqual(convertOpenai({ functions: openaiFunctions }, 'f.json').tools, expected);
  assert.deepEqual(
    convertOpenai({ tools: openaiFunctions.map((f) => ({ type: 'function', function: f })) }, 'f.json').tools,
    expected,
  );
  assert.deepEqual(
    convertOpenai(
      openaiFunctions.map((f) => ({ type: 'function', ...f })),
      'f.json',
    ).tools,
    expected,
    'Responses API: flat',
  );
  assert.deepEqual(convertOpenai(openaiFunctions[0], 'f.json').tools, expected, 'a single spec');
});

test('a name over 64 characters gets a cut id with a hash of the name, the same on every import', () => {
  const long = `fetch_${'very_'.repeat(15)}long_report`;
  const other = long.replace('report', 'record');
  const ids = convertOpenai([{ name: long }, { name: other }], 'f.json').tools.map((t) => t.id);
  for (const id of ids) assert.ok(isValidId(id) && id.length <= 64, id);
  assert.notEqual(ids[0], ids[1]);
  assert.deepEqual(
    convertOpenai([{ name: long }, { name: other }], 'g.json').tools.map((t) => t.id),
    ids,
  );
});

test('bad specs name the file and the JSON Pointer of the problem', () => {
  const cases: [unknown, RegExp][] = [
    [
      { tools: [openaiTools.tools[0], { type: 'code_interpreter' }] },
      /f\.json at \/tools\/1\/type: only function tools can be imported, got "code_interpreter"/,
    ],
    [
      { tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'string' } } }] },
      /at \/tools\/0\/function\/parameters\/type: must be "object"/,
    ],
    [
      { tools: [{ type: 'function', function: { name: 'x', parameters: 'none' } }] },
      /at \/tools\/0\/function\/parameters: must be a JSON Schema object, got string/,
    ],
    [{ tools: [{ type: 'function', function: 'x' }] }, /at \/tools\/0\/function: must be a function spec/],
    [[{ description: 'no name' }], /f\.json at \/0\/name: missing/],
    [
      [openaiFunctions[0], openaiFunctions[0]],
      /at \/1\/name: duplicate tool name "get_current_weather" \(first at \/0\)/,
    ],
    [
      [{ name: 'x', parameters: { type: 'object', required: 'a' } }],
      /at \/0\/parameters\/required: not a valid JSON Schema/,
    ],
    [{ functions: 'x' }, /at \/functions: must be an array of function specs/],
    [{ models: [] }, /f\.json: expected an array of OpenAI function specs/],
    [[null], /at \/0: expected a function spec/],
  ];
  for (const [doc, message] of cases) {
    assert.throws(
      () => convertOpenai(doc, 'f.json'),
      (e: Error) => e instanceof ImportError && message.test(e.message),
      message.source,
    );
  }
});

test(
  'Python type names, as BFCL writes them, import as their JSON Schema types (a parameter named "type" stays a ' +
    'parameter)',
  () => {
    const spec = {
      name: 'calculate_area',
      description: 'Area of a triangle.',
      parameters: {
        type: 'dict',
        required: ['base'],
        properties: {
          base: { type: 'float' },
          sides: { type: 'tuple', items: [{ type: 'int' }, { type: 'long' }] },
          type: { type: 'str' },
          extra: { type: 'any' },
          map: { type: ['HashMap', 'null'] },
        },
      },
    };
    const [tool] = convertOpenai([spec], 'bfcl.json').tools;
    assert.deepEqual(tool!.parameters, {
      type: 'object',
      required: ['base'],
      properties: {
        base: { type: 'number' },
        sides: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }] },
        type: { type: 'string' },
        extra: {},
        map: { type: ['object', 'null'] },
      },
    });
  },
);
