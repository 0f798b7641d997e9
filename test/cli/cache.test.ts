/**
 * `toolenv cache stats|export|import` and `toolenv call` as a user runs them: the real bin/toolenv, spawned on fixture
 * files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import type { Tool } from '../../src/library/tool.js';
import { ResponseCache, type CacheEntry } from '../../src/simulator/cache.js';
import { petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function toolenv(args: string[]): Run {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TOOLENV_DEBUG: '' },
  });
  return { status, stdout, stderr };
}

function summary(run: Run): Record<string, unknown> {
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

function assertUsageError(run: Run, message: RegExp): void {
  assert.equal(run.status, 2, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stderr, /^toolenv: [^\n]*\n$/);
  assert.match(run.stderr, message);
}

function cacheFile(): string {
  return join(tempDir('toolenv-cli-cache-'), 'responses.db');
}

/** A cache with a few entries of different sources, some of them hit. */
function filledCache(): string {
  const file = cacheFile();
  const cache = ResponseCache.open(file);
  cache.put(
    'petstore_test__getPetById',
    { petId: 7 },
    { status: 200, body: { id: 7, name: 'Rex' }, source: 'example' },
  );
  cache.put(
    'petstore_test__listPets',
    { limit: 2 },
    {
      status: 200,
      body: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
      source: 'synth',
    },
  );
  cache.put('petstore_test__listPets', { limit: 3 }, { status: 200, body: [], source: 'synth' });
  cache.put(
    'weather_forecast',
    { city: 'Zürich', days: 2 },
    { status: 200, body: 'sunny — "mostly"', source: 'model' },
  );
  for (let i = 0; i < 3; i++) cache.get('petstore_test__listPets', { limit: 2 });
  cache.close();
  return file;
}

function entries(file: string): Omit<CacheEntry, 'last_hit_at'>[] {
  const cache = ResponseCache.open(file, { mode: 'read-only' });
  try {
    return [...cache.entries()];
  } finally {
    cache.close();
  }
}

test('every cache subcommand and call has --help', () => {
  for (const args of [['cache', 'stats'], ['cache', 'export'], ['cache', 'import'], ['call']]) {
    const run = toolenv([...args, '--help']);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /--cache/);
  }
  assert.match(toolenv(['call', '--help']).stdout, /--error-rate.*--code.*--example.*--dynamic/s);
  assert.match(toolenv(['cache', 'import', '--help']).stdout, /--library.*--replace/s);
});

test('stats counts entries, sources, hits and the busiest tools', () => {
  const file = filledCache();
  const stats = summary(toolenv(['cache', 'stats', '--cache', file, '--json', '--top', '1']));
  assert.equal(stats.entries, 4);
  assert.equal(stats.tools, 3);
  assert.equal(stats.hits, 3);
  assert.deepEqual(stats.by_source, { synth: 2, example: 1, model: 1 });
  assert.deepEqual(stats.top_tools, [{ tool: 'petstore_test__listPets', entries: 2, hits: 3 }]);
  assert.ok((stats.size_bytes as number) > 0);
  const text = toolenv(['cache', 'stats', '--cache', file]);
  assert.match(text.stdout, /^entries\s+4 \(3 tools\)$/m);
  assert.match(text.stdout, /^petstore_test__listPets\s+2 /m);
  assertUsageError(
    toolenv(['cache', 'stats', '--cache', join(tempDir(), 'missing.db')]),
    /no response cache at .*missing\.db/,
  );
});

test('export then import round-trips every entry, and importing again keeps what is there', () => {
  const file = filledCache();
  const exported = toolenv(['cache', 'export', '--cache', file]);
  assert.equal(exported.status, 0, exported.stderr);
  const lines = exported.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 4);
  assert.deepEqual(Object.keys(JSON.parse(lines[1]!)), [
    'tool',
    'arguments',
    'status',
    'body',
    'source',
    'created_at',
    'hits',
    'last_hit_at',
  ]);

  const dump = join(tempDir(), 'dump.jsonl');
  assert.deepEqual(summary(toolenv(['cache', 'export', '--cache', file, '--out', dump, '--json'])), {
    cache: file,
    out: dump,
    exported: 4,
  });
  assert.equal(readFileSync(dump, 'utf8'), exported.stdout);

  const copy = cacheFile();
  assert.deepEqual(summary(toolenv(['cache', 'import', dump, '--cache', copy, '--json'])), {
    cache: copy,
    from: dump,
    format: 'jsonl',
    inserted: 4,
    replaced: 0,
    kept: 0,
  });
  assert.deepEqual(entries(copy), entries(file));
  assert.deepEqual(summary(toolenv(['cache', 'import', dump, '--cache', copy, '--json'])).kept, 4);
});

test('a bad line names the file and line, exits 2 and stores nothing', () => {
  const file = filledCache();
  const before = entries(file);
  const dump = join(tempDir(), 'bad.jsonl');
  const good = { tool: 'weather_forecast', arguments: { city: 'Oslo' }, status: 200, body: { t: 1 }, source: 'synth' };
  const cases: [string, RegExp][] = [
    ['{"tool": "x", "arguments": {}, "status": 200, "body": 1', /bad\.jsonl:3: not JSON/],
    [JSON.stringify({ ...good, arguments: [1] }), /bad\.jsonl:3: "arguments" must be a JSON object/],
    [JSON.stringify({ ...good, status: 99 }), /bad\.jsonl:3: "status" must be an HTTP status/],
    [JSON.stringify({ tool: 'x', arguments: {}, status: 200 }), /bad\.jsonl:3: "body" is missing/],
    [JSON.stringify({ ...good, created_at: 'yesterday' }), /bad\.jsonl:3: "created_at" must be an ISO 8601 time/],
  ];
  for (const [line, message] of cases) {
    writeFileSync(
      dump,
      `${JSON.stringify({ ...good, arguments: { city: 'Rome' } })}\n\n${line}\n${JSON.stringify(good)}\n`,
    );
    assertUsageError(toolenv(['cache', 'import', dump, '--cache', file, '--replace']), message);
    assert.deepEqual(entries(file), before);
  }
  assertUsageError(
    toolenv(['cache', 'import', join(tempDir(), 'none.jsonl'), '--cache', file]),
    /cannot read .*none\.jsonl/,
  );
});

/** Library tools imported from ToolBench, as the toolbench importer records their origin. */
const toolbenchTools: Tool[] = [
  {
    id: 'weatherapi_com__realtime_weather_api',
    name: 'Realtime Weather API',
    description: 'Current weather',
    category: 'weather',
    parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string' }, lang: { type: 'string' } } },
    examples: [],
    origin: { format: 'toolbench', category: 'Weather', tool_name: 'WeatherAPI.com', api_name: 'Realtime Weather API' },
  },
  {
    id: 'air_quality__current',
    name: 'Current Air Quality (by lat/lon)',
    description: 'Air quality now',
    category: 'data',
    parameters: { type: 'object', properties: { point: { type: 'string' } } },
    examples: [],
    origin: {
      format: 'toolbench',
      category: 'Data',
      tool_name: 'Air Quality.io — Ñandú Edition',
      api_name: 'Current Air Quality (by lat/lon)',
    },
  },
  {
    id: 'stock_quotes__id',
    name: 'id',
    description: 'A quote by id',
    category: 'finance',
    parameters: { type: 'object', properties: { symbol: { type: 'string' } } },
    response_status: 201,
    examples: [],
    origin: { format: 'toolbench', category: 'Finance', tool_name: 'Stock Quotes', api_name: 'id' },
  },
];

/** StableToolBench's tool_response_cache layout, with the quirks of the real one (Python reprs, recorded errors). */
function writeStableBench(extra: Record<string, string> = {}): string {
  const root = tempDir('toolenv-stb-');
  const files: Record<string, string> = {
    'Weather/weatherapi_com_for_Weather/realtime_weather_api.json': JSON.stringify({
      "{'q': 'London'}": {
        error: '',
        response:
          "{'location': {'name': 'London', 'lat': 51.52}, 'current': {'temp_c': 11.0, 'is_day': True, 'note': None}}",
      },
      "{'q': \"O'Hare\", 'lang': 'en'}": { error: '', response: '{"location": {"name": "O\'Hare"}}' },
      "{'q': 'Paris', 'lang': 'fr'}": { error: 'Rate limit exceeded', response: '' },
      'not a dict': { error: '', response: 'x' },
      '': { error: '', response: 'plain text answer' },
    }),
    'Weather/weatherapi_com_for_Weather/notes.txt': 'not a cache file',
    'Data/air_quality_io_and_edition_for_Data/current_air_quality_by_lat_lon.json': JSON.stringify({
      "{'point': '35.779,-78.638', 'hours': 72, 'metric': False, 'pollutants': ['pm25', 'o3'], 'filter': {'min': 1}}": {
        error: '',
        response: { aqi: 42 },
      },
    }),
    'Finance/stock_quotes_for_Finance/is_id.json': JSON.stringify({
      '{"symbol": "AAPL"}': { error: '', response: "{'price': 1.5e2, 'name': 'Apple\\u00e9'}" },
    }),
    'Finance/unknown_tool_for_Finance/whatever.json': JSON.stringify({ '{}': { error: '', response: '{}' } }),
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('a StableToolBench cache imports onto the library tools of ToolBench origin, reporting unmatched files', () => {
  const library = writeFixtureLibrary([...petstoreTools, ...toolbenchTools]);
  const file = cacheFile();
  const report = summary(
    toolenv(['cache', 'import', writeStableBench(), '--cache', file, '--library', library, '--json']),
  );
  assert.deepEqual(report.unmatched, [join('Finance', 'unknown_tool_for_Finance', 'whatever.json')]);
  assert.equal(report.format, 'stabletoolbench');
  assert.equal(report.files, 4);
  assert.equal(report.matched_files, 3);
  assert.equal(report.entries, 5);
  assert.equal(report.inserted, 5);
  assert.equal(report.skipped_errors, 1);
  assert.deepEqual(report.skipped_arguments, [
    { file: join('Weather', 'weatherapi_com_for_Weather', 'realtime_weather_api.json'), key: 'not a dict' },
  ]);

  const cache = ResponseCache.open(file, { mode: 'read-only' });
  assert.deepEqual(cache.get('weatherapi_com__realtime_weather_api', { q: 'London' }), {
    status: 200,
    body: { location: { name: 'London', lat: 51.52 }, current: { temp_c: 11, is_day: true, note: null } },
    source: 'stabletoolbench',
  });
  assert.deepEqual(cache.get('weatherapi_com__realtime_weather_api', { lang: 'en', q: "O'Hare" })!.body, {
    location: { name: "O'Hare" },
  });
  assert.equal(cache.get('weatherapi_com__realtime_weather_api', {})!.body, 'plain text answer');
  assert.deepEqual(
    cache.get('air_quality__current', {
      point: '35.779,-78.638',
      hours: 72,
      metric: false,
      pollutants: ['pm25', 'o3'],
      filter: { min: 1 },
    })!.body,
    { aqi: 42 },
  );
  assert.deepEqual(cache.get('stock_quotes__id', { symbol: 'AAPL' }), {
    status: 201,
    body: { price: 150, name: 'Apple\u00e9' },
    source: 'stabletoolbench',
  });
  cache.close();

  const call = summary(
    toolenv([
      'call',
      'weatherapi_com__realtime_weather_api',
      '--args',
      '{"q": "London"}',
      '--library',
      library,
      '--cache',
      file,
      '--error-rate',
      '0',
      '--json',
    ]),
  );
  assert.equal(call.source, 'cache');
  assert.deepEqual(call.body, {
    location: { name: 'London', lat: 51.52 },
    current: { temp_c: 11, is_day: true, note: null },
  });
});

test('a broken StableToolBench file names the file, exits 2 and stores nothing', () => {
  const library = writeFixtureLibrary([...petstoreTools, ...toolbenchTools]);
  const file = filledCache();
  const before = entries(file);
  const notJson = writeStableBench({
    'Weather/weatherapi_com_for_Weather/forecast_weather_api.json': '{"{}": {"error": "", ',
  });
  const withForecast = writeFixtureLibrary([
    ...toolbenchTools,
    {
      ...toolbenchTools[0]!,
      id: 'weatherapi_com__forecast',
      origin: {
        format: 'toolbench',
        category: 'Weather',
        tool_name: 'WeatherAPI.com',
        api_name: 'Forecast Weather API',
      },
    },
  ]);
  assertUsageError(
    toolenv(['cache', 'import', notJson, '--cache', file, '--library', withForecast]),
    /forecast_weather_api\.json: not JSON/,
  );
  const badShape = writeStableBench({
    'Data/air_quality_io_and_edition_for_Data/current_air_quality_by_lat_lon.json': JSON.stringify({
      '{}': 'just a string',
    }),
  });
  assertUsageError(
    toolenv(['cache', 'import', badShape, '--cache', file, '--library', library]),
    /current_air_quality_by_lat_lon\.json: the response of \{\} is not/,
  );
  assert.deepEqual(entries(file), before);
  assertUsageError(
    toolenv(['cache', 'import', writeStableBench(), '--cache', file, '--library', writeFixtureLibrary()]),
    /no tools of ToolBench origin/,
  );
});

/**
 * ToolBench answer trajectories: nested train_messages (each step repeats the conversation so far), OpenAI tool_calls
 * too.
 */
function writeToolbenchAnswers(): string {
  const root = tempDir('toolenv-tb-answers-');
  const observation = (response: string, error = '') => JSON.stringify({ error, response });
  const call = (name: string, args: unknown) => ({
    role: 'assistant',
    content: 'Thought: …',
    function_call: { name, arguments: JSON.stringify(args) },
  });
  const result = (name: string, content: string) => ({ role: 'function', name, content });
  const weather = 'realtime_weather_api_for_weatherapi_com';
  const step1 = [
    { role: 'system', content: 'You are AutoGPT…' },
    { role: 'user', content: 'Weather in London, and the AAPL quote?' },
    call(weather, { q: 'London' }),
    result(weather, observation("{'location': {'name': 'London'}, 'current': {'temp_c': 11.0, 'is_day': True}}")),
  ];
  const step2 = [
    ...step1,
    call('is_id_for_stock_quotes', { symbol: 'AAPL' }),
    result('is_id_for_stock_quotes', observation('{"price": 150}')),
    call('unknown_api_for_nowhere', {}),
    result('unknown_api_for_nowhere', observation('', 'No such function name: unknown_api_for_nowhere')),
    call(weather, { q: 5 }),
    result(weather, observation('{}')),
    call(weather, { q: 'Paris' }),
    result(weather, observation('', 'Rate limit exceeded')),
    call('Finish', { return_type: 'give_answer', final_answer: '11 °C; 150' }),
    result('Finish', '{"response": "successfully giving the final answer."}'),
  ];
  mkdirSync(join(root, 'G1_answer'), { recursive: true });
  writeFileSync(
    join(root, 'G1_answer', '10_DFS_woFilter_w2.json'),
    JSON.stringify({ answer_generation: { valid_data: true, query: '…', train_messages: [step1, step2] } }),
  );
  const openai = [
    { role: 'user', content: 'Pet 7?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'petstore_test__getPetById', arguments: '{"petId": 7}' } },
        { id: 'c2', type: 'function', function: { name: weather, arguments: '{"q": "London"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c2', content: observation('{"location": {"name": "London (again)"}}') },
    { role: 'tool', tool_call_id: 'c1', content: observation('{"id": 7, "name": "Real Rex"}') },
  ];
  writeFileSync(
    join(root, 'G1_answer', '11_chatgpt.json'),
    JSON.stringify({ answer_generation: { train_messages: openai } }),
  );
  writeFileSync(join(root, 'G1_answer', 'notes.txt'), 'not an answer file');
  return root;
}

test(
  'ToolBench answer trajectories import as source real: ' +
    'calls mapped to library tools, the rest counted by reason; replay serves them',
  () => {
    const library = writeFixtureLibrary([...petstoreTools, ...toolbenchTools]);
    const file = cacheFile();
    const report = summary(
      toolenv([
        'cache',
        'import',
        '--format',
        'toolbench',
        writeToolbenchAnswers(),
        '--cache',
        file,
        '--library',
        library,
        '--json',
      ]),
    );
    assert.equal(report.format, 'toolbench');
    assert.equal(report.files, 2);
    assert.equal(report.calls, 7, 'each call once, however many steps repeat it; Finish is not a call');
    assert.equal(report.mapped, 3);
    assert.equal(report.inserted, 3);
    assert.deepEqual(report.skipped, {
      finish: 1,
      unknown_function: { unknown_api_for_nowhere: 1 },
      invalid_arguments: 1,
      recorded_errors: 1,
      duplicates: 1,
    });

    const cache = ResponseCache.open(file, { mode: 'read-only' });
    assert.deepEqual(cache.get('weatherapi_com__realtime_weather_api', { q: 'London' }), {
      status: 200,
      body: { location: { name: 'London' }, current: { temp_c: 11, is_day: true } },
      source: 'real',
    });
    assert.deepEqual(cache.get('stock_quotes__id', { symbol: 'AAPL' }), {
      status: 201,
      body: { price: 150 },
      source: 'real',
    });
    assert.deepEqual(cache.get('petstore_test__getPetById', { petId: 7 }), {
      status: 200,
      body: { id: 7, name: 'Real Rex' },
      source: 'real',
    });
    cache.close();

    const args = ['--library', library, '--cache', file, '--upstream', 'replay', '--json'];
    const replayed = summary(
      toolenv(['call', 'stock_quotes__id', '--args', '{"symbol": "AAPL"}', ...args, '--error-rate', '0']),
    );
    assert.equal(replayed.source, 'real');
    assert.deepEqual(replayed.body, { price: 150 });
    const miss = toolenv(['call', 'stock_quotes__id', '--args', '{"symbol": "MSFT"}', ...args]);
    assert.equal(miss.status, 1);
    assert.match(miss.stderr, /^toolenv: 501 No recording: stock_quotes__id has no recorded real answer/);

    const text = toolenv([
      'cache',
      'import',
      '--format',
      'toolbench',
      writeToolbenchAnswers(),
      '--cache',
      cacheFile(),
      '--library',
      library,
    ]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /function calls: 7, mapped to library tools: 3/);
    assert.match(text.stdout, /unknown_api_for_nowhere \(1\)/);
  },
);

test(
  'a file that is not a ToolBench answer names the file, ' +
    'exits 2 and stores nothing; bad upstream flags are usage errors',
  () => {
    const library = writeFixtureLibrary([...petstoreTools, ...toolbenchTools]);
    const file = filledCache();
    const before = entries(file);
    const root = writeToolbenchAnswers();
    writeFileSync(join(root, 'G1_answer', '12_other.json'), JSON.stringify({ query: 'no answer_generation here' }));
    assertUsageError(
      toolenv(['cache', 'import', '--format', 'toolbench', root, '--cache', file, '--library', library]),
      /12_other\.json: not a ToolBench answer/,
    );
    assert.deepEqual(entries(file), before);
    assertUsageError(
      toolenv(['cache', 'import', '--format', 'csv', root, '--cache', file]),
      /--format must be one of jsonl, stabletoolbench, toolbench/,
    );
    assertUsageError(
      toolenv(['cache', 'import', file, file, '--cache', cacheFile()]),
      /--format jsonl imports one file, got 2 paths/,
    );

    const call = ['call', 'petstore_test__listPets', '--library', library, '--cache', file];
    assertUsageError(
      toolenv([...call, '--upstream', 'mirror']),
      /--upstream must be one of record, replay, passthrough/,
    );
    assertUsageError(
      toolenv([...call, '--upstream', 'record', '--cache-mode', 'read-only']),
      /--upstream record stores the real answers in the cache: it needs --cache-mode read-write/,
    );
    assertUsageError(toolenv([...call, '--upstream-map', 'map.json']), /--upstream-map needs --upstream/);
    assertUsageError(
      toolenv([...call, '--upstream', 'replay', '--upstream-header', 'Authorization: x']),
      /--upstream-header needs --upstream record or passthrough/,
    );
    const badMap = join(tempDir('toolenv-map-'), 'map.json');
    writeFileSync(badMap, JSON.stringify({ 'petstore.*': 'ftp://example.com' }));
    assertUsageError(
      toolenv([...call, '--upstream', 'passthrough', '--upstream-map', badMap]),
      /"petstore\.\*" must map to an http:\/\/ or https:\/\/ URL/,
    );
  },
);

test('call prints status, source, error kind and body; bad flags are usage errors', () => {
  const library = writeFixtureLibrary();
  const file = cacheFile();
  const args = ['--library', library, '--cache', file, '--error-rate', '0'];
  const first = summary(
    toolenv(['call', 'weather_forecast', '--args', '{"city": "Oslo", "days": 2}', ...args, '--json']),
  );
  assert.equal(first.status, 200);
  assert.equal(first.source, 'synth');
  assert.equal(first.error, null);
  const argsFile = join(tempDir(), 'args.json');
  writeFileSync(argsFile, '{ "days": 2,\n  "city": "Oslo" }');
  const second = summary(toolenv(['call', 'weather_forecast', '--args-file', argsFile, ...args, '--json']));
  assert.deepEqual(second, { ...first, source: 'cache' });

  const example = summary(toolenv(['call', 'petstore_test__getPetById', '--args', '{"petId": 7}', ...args, '--json']));
  assert.deepEqual(
    [example.source, example.body],
    ['example', { id: 7, name: 'Rex', status: 'sold' }],
    'spec examples answer before the synthesizer',
  );

  const text = toolenv(['call', 'weather_forecast', '--args', '{"city": "Oslo"}', ...args, '--code', '503']);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^status {2}503\nsource {2}rule\nerror {3}network\n/);
  assert.match(text.stdout, /"title": "Service Unavailable"/);

  const refused = toolenv(['call', 'weather_forcast', ...args, '--json']);
  assert.equal(refused.status, 2, "a call the Rule layer refuses is the caller's mistake");
  const unknown = JSON.parse(refused.stdout) as Record<string, unknown>;
  assert.equal(unknown.status, 404);
  assert.deepEqual((unknown.body as { suggestions: string[] }).suggestions[0], 'weather_forecast');

  const injected = summary(
    toolenv([
      'call',
      'weather_forecast',
      '--args',
      '{"city": "Rome"}',
      '--library',
      library,
      '--cache',
      file,
      '--error-rate',
      '1',
      '--json',
    ]),
  );
  assert.ok(['rate_limit', 'network', 'timeout', 'auth'].includes(injected.error as string));

  assertUsageError(toolenv(['call', 'weather_forecast', '--args', '{city}', ...args]), /--args is not JSON/);
  assertUsageError(
    toolenv(['call', 'weather_forecast', '--args', '{}', '--args-file', argsFile, ...args]),
    /--args or --args-file, not both/,
  );
  assertUsageError(
    toolenv(['call', 'weather_forecast', '--library', library, '--error-rate', '2']),
    /--error-rate must be a number between 0 and 1/,
  );
  assertUsageError(
    toolenv(['call', 'weather_forecast', ...args, '--cache-mode', 'sometimes']),
    /--cache-mode must be one of read-write, read-only, off/,
  );
  assertUsageError(toolenv(['call', 'weather_forecast', '--library', join(tempDir(), 'nolib')]), /no library at/);
});
