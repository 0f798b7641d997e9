import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportError } from '../../src/library/importers/errors.js';
import { readImport } from '../../src/library/importers/index.js';
import { convertMcp } from '../../src/library/importers/mcp.js';
import { CATEGORIES } from '../../src/library/categories.js';
import { isValidId } from '../../src/library/ids.js';
import { createAjv } from '../../src/library/ajv.js';
import { mcpToolsList, writeSources } from '../fixtures/import-sources.js';

test('a tools/list result becomes one tool per MCP tool, outputSchema as the response schema', async () => {
  const dir = writeSources({ 'weather-server.json': mcpToolsList });
  const { batch } = await readImport(dir, 'mcp');
  assert.deepEqual(
    batch.tools.map((t) => [t.id, t.name]),
    [
      ['get_weather', 'get_weather'],
      ['filesystem_read_file', 'filesystem.read_file'],
      ['list_allowed_directories', 'list_allowed_directories'],
      ['ping', 'ping'],
    ],
  );
  const [weather, readFile, listDirs, ping] = batch.tools;
  assert.equal(weather!.description, 'Get current weather information for a location');
  // The draft-07 $schema is dropped (the project's ajv is 2020-12); everything else is kept as written.
  assert.deepEqual(weather!.parameters, {
    type: 'object',
    properties: { location: { type: 'string', description: 'City name or zip code' } },
    required: ['location'],
    additionalProperties: false,
  });
  assert.deepEqual(weather!.response_schema, mcpToolsList.tools[0]!.outputSchema);
  assert.deepEqual(weather!.origin, { format: 'mcp', name: 'get_weather' });
  assert.deepEqual(readFile!.origin, { format: 'mcp', name: 'filesystem.read_file' });
  assert.equal(readFile!.response_schema, undefined);
  assert.deepEqual(listDirs!.parameters, { type: 'object', properties: {} });
  assert.deepEqual(ping!.parameters, { type: 'object', properties: {} }, 'a missing inputSchema means no arguments');
  assert.equal(ping!.description, 'Ping');
  assert.equal(weather!.category, 'location');
  assert.equal(readFile!.category, 'storage');
  for (const tool of batch.tools) {
    assert.ok(isValidId(tool.id));
    assert.ok(CATEGORIES.includes(tool.category), tool.category);
    assert.deepEqual(tool.examples, []);
  }
  assert.deepEqual(batch.apis, [
    {
      api_id: 'mcp__weather-server',
      title: 'weather-server',
      provider: 'weather-server',
      category: batch.apis[0]!.category,
      format: 'mcp',
    },
  ]);
  const validate = createAjv().compile(weather!.parameters);
  assert.ok(validate({ location: 'Paris' }));
  assert.ok(!validate({ location: 'Paris', extra: 1 }));
});

test('a bare array of tools, a JSON-RPC response and YAML read the same', () => {
  const fromList = convertMcp(mcpToolsList, 'a.json').tools;
  assert.deepEqual(convertMcp(mcpToolsList.tools, 'a.json').tools, fromList);
  assert.deepEqual(convertMcp({ jsonrpc: '2.0', id: 1, result: mcpToolsList }, 'a.json').tools, fromList);
});

test('YAML files are read too', async () => {
  const yaml = [
    'tools:',
    '  - name: echo',
    '    description: Echo the text back',
    '    inputSchema:',
    '      type: object',
    '      properties:',
    '        text: {type: string}',
    '      required: [text]',
    '',
  ].join('\n');
  const { batch } = await readImport(writeSources({ 'echo.yaml': yaml }), 'mcp');
  assert.deepEqual(batch.tools[0]!.parameters, {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  });
  await assert.rejects(
    readImport(writeSources({ 'bad.yml': 'tools:\n  - name: [unclosed\n' }), 'mcp'),
    /bad\.yml: not valid YAML: .*line \d+, column \d+/,
  );
});

test('bad input names the file and where the problem is', () => {
  const tool = (patch: Record<string, unknown>) => ({
    tools: [mcpToolsList.tools[1], { name: 'x', description: 'x', inputSchema: { type: 'object' }, ...patch }],
  });
  const cases: [unknown, RegExp][] = [
    [tool({ inputSchema: 'a string' }), /s\.json at \/tools\/1\/inputSchema: must be a JSON Schema object, got string/],
    [
      tool({ inputSchema: [{ type: 'string' }] }),
      /at \/tools\/1\/inputSchema: must be a JSON Schema object, got array/,
    ],
    [tool({ inputSchema: { type: 'array', items: {} } }), /at \/tools\/1\/inputSchema\/type: must be "object"/],
    [
      tool({ inputSchema: { type: 'object', properties: [] } }),
      /at \/tools\/1\/inputSchema\/properties: must be an object/,
    ],
    [
      tool({ inputSchema: { type: 'object', properties: { n: { type: 'integr' } } } }),
      /at \/tools\/1\/inputSchema\/properties\/n\/type: not a valid JSON Schema/,
    ],
    [
      tool({ inputSchema: { type: 'object', properties: { n: { $ref: '#/$defs/missing' } } } }),
      /at \/tools\/1\/inputSchema: not a usable JSON Schema: can't resolve reference/,
    ],
    [tool({ outputSchema: 42 }), /at \/tools\/1\/outputSchema: must be a JSON Schema object, got number/],
    [tool({ name: '' }), /at \/tools\/1\/name: missing/],
    [
      { tools: [mcpToolsList.tools[1], mcpToolsList.tools[1]] },
      /at \/tools\/1\/name: duplicate tool name "filesystem.read_file" \(first at \/tools\/0\)/,
    ],
    [{ tools: [42] }, /at \/tools\/0: expected an MCP tool/],
    [{ tools: { get_weather: {} } }, /at \/tools: must be an array of tools, got object/],
    [{ result: {} }, /s\.json: expected an MCP tools\/list result .* without "tools"/],
    ['tools', /s\.json: expected an MCP tools\/list result .*got string/],
  ];
  for (const [doc, message] of cases) {
    assert.throws(
      () => convertMcp(doc, 's.json'),
      (e: Error) => e instanceof ImportError && message.test(e.message),
      message.source,
    );
  }
});

test('a schema referring to its own $defs is kept and compiles', () => {
  const inputSchema = {
    type: 'object',
    properties: { when: { $ref: '#/$defs/date' } },
    $defs: { date: { type: 'string', format: 'date' } },
  };
  const [tool] = convertMcp(
    { tools: [{ name: 'schedule', description: 'Schedule something', inputSchema }] },
    's.json',
  ).tools;
  assert.deepEqual(tool!.parameters, inputSchema);
  const validate = createAjv().compile(tool!.parameters);
  assert.ok(validate({ when: '2025-01-31' }));
  assert.ok(!validate({ when: 'tomorrow' }));
});
