import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ImportError } from '../../src/library/importers/errors.js';
import { readImport } from '../../src/library/importers/index.js';
import { convertToolbench, templateSchema } from '../../src/library/importers/toolbench.js';
import { isValidId } from '../../src/library/ids.js';
import { createAjv } from '../../src/library/ajv.js';
import type { Tool } from '../../src/library/tool.js';
import {
  airQualityTool,
  stockTool,
  weatherapiTool,
  writeSources,
  writeToolbenchRoot,
} from '../fixtures/import-sources.js';

const byName = (tools: Tool[], name: string) => tools.find((t) => t.name === name)!;

test('a ToolBench root imports every category folder, one tool per API, category from the folder', async () => {
  const root = writeToolbenchRoot();
  const { batch, files, skipped } = await readImport(root, 'toolbench');
  assert.equal(files, 3, 'the api.py folder is not a tool file');
  assert.deepEqual(skipped, []);
  assert.deepEqual(batch.tools.map((t) => t.name).sort(), [
    'Current Air Quality (by lat/lon)',
    'Forecast Weather API',
    'Historical Air Quality',
    'Realtime Weather API',
    'quote',
  ]);
  assert.equal(byName(batch.tools, 'quote').category, 'finance');
  assert.deepEqual(byName(batch.tools, 'quote').origin, {
    format: 'toolbench',
    category: 'Finance',
    tool_name: 'Stock Quotes',
    api_name: 'quote',
  });
  assert.deepEqual(batch.apis.map((a) => [a.title, a.provider, a.category, a.format]).sort(), [
    ['Air Quality.io — Ñandú Edition', 'air-quality.p.rapidapi.com', 'weather', 'toolbench'],
    ['Stock Quotes', 'stock.p.rapidapi.com', 'finance', 'toolbench'],
    ['WeatherAPI.com', 'weatherapi-com.p.rapidapi.com', 'weather', 'toolbench'],
  ]);
  for (const tool of batch.tools) {
    assert.ok(isValidId(tool.id), tool.id);
    assert.equal(tool.parameters.type, 'object');
    assert.ok(tool.description.length > 0);
  }
  assert.equal(new Set(batch.tools.map((t) => t.id)).size, batch.tools.length);
});

test('one category folder and one file import the same records as the root does', async () => {
  const root = writeToolbenchRoot();
  const all = (await readImport(root, 'toolbench')).batch.tools;
  const weather = (await readImport(join(root, 'Weather'), 'toolbench')).batch.tools;
  const file = (await readImport(join(root, 'Weather', 'weatherapi_com.json'), 'toolbench')).batch.tools;
  assert.deepEqual(
    weather,
    all.filter((t) => t.category === 'weather'),
  );
  assert.deepEqual(
    file,
    all.filter((t) => t.origin.format === 'toolbench' && t.origin.tool_name === 'WeatherAPI.com'),
  );
});

test('parameters map ToolBench types to JSON Schema; defaults become examples only when they fit', async () => {
  const root = writeSources({ 'Environment/air.json': airQualityTool, 'Weather/w.json': weatherapiTool });
  const { batch } = await readImport(root, 'toolbench');
  const air = byName(batch.tools, 'Current Air Quality (by lat/lon)');
  assert.deepEqual(air.parameters, {
    type: 'object',
    properties: {
      point: { type: 'string', description: 'Where to look', examples: ['35.779,-78.638'] },
      hours: { type: 'number', description: 'Hours of history' },
      metric: { type: 'boolean', description: 'Metric units', examples: [true] },
      pollutants: { type: 'array', description: 'Pollutants to report', examples: [['pm25', 'o3']] },
      filter: { type: 'object', description: 'Extra filters', examples: [{ min: 1 }] },
      level: { type: 'string', description: 'Detail level', examples: ['full'] },
      color: { description: 'Colour scheme', examples: ['red'] },
      untyped: { description: 'No type given' },
    },
    required: ['point', 'hours'],
  });
  // No API description: the tool's description stands in.
  assert.equal(air.description, airQualityTool.tool_description);
  assert.equal(air.response_schema, undefined, 'an empty template says nothing about the response');
  const forecast = byName(batch.tools, 'Forecast Weather API');
  assert.deepEqual(forecast.parameters.properties.days, {
    type: 'number',
    description: 'Number of days of forecast required.',
    examples: [3],
  });
  assert.deepEqual(forecast.parameters.properties.dt, {
    type: 'string',
    format: 'date',
    description: "If passing 'dt', it should be between today and next 10 day.",
  });
  assert.deepEqual(forecast.parameters.required, ['q']);
  // Every schema compiles, and every example validates against its property's schema.
  const ajv = createAjv();
  for (const tool of batch.tools) {
    ajv.compile(tool.parameters);
    for (const [name, schema] of Object.entries(tool.parameters.properties)) {
      for (const example of (schema as { examples?: unknown[] }).examples ?? [])
        assert.ok(ajv.validate(schema, example), `${tool.name}.${name}`);
    }
    if (tool.response_schema !== undefined) ajv.compile(tool.response_schema);
  }
});

test('parameters named like Object.prototype members are kept', () => {
  const doc = JSON.parse(
    '{"tool_name": "t", "api_list": [{"name": "a", "required_parameters": [{"name": "constructor", "type": ' +
      '"STRING"}, {"name": "__proto__", "type": "NUMBER"}]}]}',
  );
  const [tool] = convertToolbench(doc, 't.json', 'Data').tools;
  assert.deepEqual(Object.keys(tool!.parameters.properties), ['constructor', '__proto__']);
  assert.deepEqual(tool!.parameters.required, ['constructor', '__proto__']);
  assert.equal(
    JSON.stringify(tool!.parameters),
    '{"type":"object","properties":{"constructor":{"type":"string"},"__proto__":{"type":"number"}},' +
      '"required":["constructor","__proto__"]}',
  );
});

test('template_response becomes a response schema that accepts the shape and rejects others', async () => {
  const { batch } = await readImport(writeSources({ 'Weather/w.json': weatherapiTool }), 'toolbench');
  const realtime = byName(batch.tools, 'Realtime Weather API');
  assert.deepEqual(realtime.response_schema, {
    type: 'object',
    properties: {
      location: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          region: { type: 'string' },
          lat: { type: 'number' },
          lon: { type: 'number' },
          localtime_epoch: { type: 'integer' },
        },
        required: ['name', 'region', 'lat', 'lon', 'localtime_epoch'],
      },
      current: {
        type: 'object',
        properties: {
          temp_c: { type: 'number' },
          is_day: { type: 'integer' },
          condition: {
            type: 'object',
            properties: { text: { type: 'string' }, icon: { type: 'string' }, code: { type: 'integer' } },
            required: ['text', 'icon', 'code'],
          },
        },
        required: ['temp_c', 'is_day', 'condition'],
      },
    },
    required: ['location', 'current'],
  });
  const validate = createAjv().compile(byName(batch.tools, 'Forecast Weather API').response_schema!);
  const body = {
    location: { name: 'London', country: 'UK' },
    forecast: {
      forecastday: [{ date: '2024-05-01', date_epoch: 1714521600, day: { maxtemp_c: 17.2, daily_will_it_rain: 1 } }],
    },
    alerts: { alert: [{ headline: 'Flood warning' }] },
    warning: 'anything: a template None says nothing',
  };
  assert.ok(validate(body), JSON.stringify(validate.errors));
  assert.ok(!validate({ ...body, forecast: { forecastday: [{ date: 20240501 }] } }));
});

test('templateSchema reads lists of mixed items, literal values and unknown type names', () => {
  assert.deepEqual(templateSchema(['int']), { type: 'array', items: { type: 'integer' } });
  assert.deepEqual(templateSchema(['str', 'str']), { type: 'array', items: { type: 'string' } });
  assert.deepEqual(templateSchema(['str', 'int']), {
    type: 'array',
    items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  });
  assert.deepEqual(templateSchema([]), { type: 'array' });
  assert.deepEqual(templateSchema({ a: 1.5, b: true, c: null, d: 'hello world', e: 'list' }), {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'boolean' }, c: {}, d: { type: 'string' }, e: { type: 'array' } },
    required: ['a', 'b', 'c', 'd', 'e'],
  });
  assert.deepEqual(
    templateSchema(JSON.parse('{"constructor": "toString", "__proto__": "int"}')),
    JSON.parse(
      '{"type":"object","properties":{"constructor":{"type":"string"},"__proto__":{"type":"integer"}},' +
        '"required":["constructor","__proto__"]}',
    ),
  );
  let deep: unknown = 'int';
  for (let i = 0; i < 200; i++) deep = [deep];
  assert.doesNotThrow(() => templateSchema(deep));
});

test('names that are not valid ids get stable, distinct ids; the origin keeps the names', async () => {
  const long = {
    ...stockTool,
    tool_name: 'An extremely long RapidAPI tool name that goes on and on beyond any limit',
    api_list: [stockTool.api_list[0], { ...stockTool.api_list[0], name: 'quote' }],
  };
  const root = writeSources({ 'Finance/long.json': long, 'Weather/air.json': airQualityTool });
  const first = (await readImport(root, 'toolbench')).batch.tools;
  const again = (await readImport(root, 'toolbench')).batch.tools;
  assert.deepEqual(
    first.map((t) => t.id),
    again.map((t) => t.id),
  );
  for (const tool of first) assert.ok(isValidId(tool.id), tool.id);
  const air = first.find((t) => t.origin.format === 'toolbench' && t.origin.tool_name === airQualityTool.tool_name)!;
  assert.equal(air.id, 'Air_Quality_io_Nandu_Edition__Current_Air_Quality_by_lat_lon');
  // The two APIs named "quote" of one tool: same readable id, told apart later by assignIds (see import-write tests).
  const quotes = first.filter((t) => t.name === 'quote');
  assert.equal(quotes.length, 2);
  assert.ok(quotes[0]!.id.length <= 64);
});

test('a malformed file names the file and the JSON Pointer of the problem', async () => {
  const cases: [string, unknown, RegExp][] = [
    ['truncated.json', JSON.stringify(weatherapiTool).slice(0, 200), /truncated\.json: not valid JSON: .*truncated/],
    [
      'no-name.json',
      { ...stockTool, api_list: [stockTool.api_list[0], { description: 'x', method: 'GET' }] },
      /no-name\.json at \/api_list\/1\/name: missing/,
    ],
    [
      'param.json',
      { ...stockTool, api_list: [{ name: 'q', required_parameters: [{ type: 'STRING' }] }] },
      /param\.json at \/api_list\/0\/required_parameters\/0\/name: missing/,
    ],
    [
      'params.json',
      { ...stockTool, api_list: [{ name: 'q', optional_parameters: 'none' }] },
      /at \/api_list\/0\/optional_parameters: must be an array/,
    ],
    [
      'list.json',
      { tool_name: 'x', api_list: { name: 'q' } },
      /list\.json at \/api_list: must be an array, got object/,
    ],
    ['nameless.json', { api_list: [] }, /nameless\.json at \/tool_name: missing/],
    ['array.json', [stockTool], /array\.json: expected a ToolBench tool object/],
    [
      'bad-syntax.json',
      '{"tool_name": "x",\n  "api_list": [}',
      /bad-syntax\.json: not valid JSON: .*line 2, column 16/,
    ],
  ];
  for (const [name, content, message] of cases) {
    const dir = writeSources({ [`Data/${name}`]: content });
    await assert.rejects(
      readImport(dir, 'toolbench'),
      (e: Error) => e instanceof ImportError && message.test(e.message),
      name,
    );
  }
});

test('skipInvalid leaves bad files out and reports each with its reason', async () => {
  const root = writeSources({
    'Finance/stock.json': stockTool,
    'Finance/broken.json': '{"tool_name": "broken", "api_list": [',
    'Weather/w.json': weatherapiTool,
    'Weather/no-name.json': { tool_name: 'n', api_list: [{}] },
  });
  const progress: [number, number][] = [];
  const { batch, files, skipped } = await readImport(root, 'toolbench', {
    skipInvalid: true,
    onFile: (done, total) => progress.push([done, total]),
  });
  assert.equal(files, 4);
  assert.deepEqual(batch.tools.map((t) => t.name).sort(), ['Forecast Weather API', 'Realtime Weather API', 'quote']);
  assert.deepEqual(
    skipped.map((s) => s.file),
    [join(root, 'Finance/broken.json'), join(root, 'Weather/no-name.json')],
  );
  assert.match(skipped[1]!.error, /no-name\.json at \/api_list\/0\/name: missing/);
  assert.deepEqual(progress, [
    [0, 4],
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ]);
});

test('a missing path or a folder without tool files is an error naming it', async () => {
  await assert.rejects(
    readImport('/nonexistent/toolbench', 'toolbench'),
    /\/nonexistent\/toolbench: no such file or directory/,
  );
  const empty = writeSources({ 'notes.txt': 'nothing here' });
  await assert.rejects(
    readImport(empty, 'toolbench'),
    (e: Error) => e instanceof ImportError && e.message.includes('no .json files'),
  );
});
