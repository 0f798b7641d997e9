/** `toolenv library import|stats|list` as a user runs them: the real bin/toolenv, spawned on fixture files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import type { Tool } from '../../src/library/tool.js';
import {
  airQualityTool,
  mcpToolsList,
  openaiFunctions,
  openaiTools,
  stockTool,
  weatherapiTool,
  writeSources,
  writeToolbenchRoot,
} from '../fixtures/import-sources.js';
import { petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function toolenv(args: string[], env: Record<string, string> = {}): Run {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, TOOLENV_DEBUG: '', ...env },
  });
  return { status, stdout, stderr };
}

/** The last stdout line as JSON: the `--json` summary. */
function summary(run: Run): Record<string, unknown> {
  const lines = run.stdout.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

/** The tool lines of `library list --json`, after checking its summary line (the last). */
function listJson(library: string, category?: string): Record<string, unknown>[] {
  const run = toolenv([
    'library',
    'list',
    '--json',
    '--library',
    library,
    ...(category ? ['--category', category] : []),
  ]);
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const last = lines.pop()!;
  assert.deepEqual(last, { tools: lines.length, category: category ?? null, library });
  return lines;
}

/** One line on stderr, "toolenv: …", exit 2, nothing on stdout. */
function assertUsageError(run: Run, message: RegExp): void {
  assert.equal(run.status, 2, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^toolenv: [^\n]*\n$/);
  assert.match(run.stderr, message);
}

test('import --help describes the command', () => {
  const run = toolenv(['library', 'import', '--help']);
  assert.equal(run.status, 0);
  for (const flag of ['--format', '--out', '--skip-invalid', '--json']) assert.ok(run.stdout.includes(flag), flag);
  assert.match(run.stdout, /openapi.*toolbench.*mcp.*openai/s);
});

test('import creates a library, extends it with each format, and stats and list show what is in it', () => {
  const library = join(tempDir(), 'lib');
  const weather = join(writeToolbenchRoot(), 'Weather');
  const first = toolenv(['library', 'import', weather, '--format', 'toolbench', '--out', library, '--json']);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stderr, '', 'no progress bar when stderr is not a TTY');
  assert.deepEqual(summary(first), {
    library,
    format: 'toolbench',
    imported: 4,
    apis: 2,
    replaced: 0,
    skipped: [],
    tools_total: 4,
  });

  const mcp = toolenv([
    'library',
    'import',
    writeSources({ 'server.json': mcpToolsList }),
    '--format',
    'mcp',
    '--out',
    library,
  ]);
  assert.equal(mcp.status, 0, mcp.stderr);
  assert.match(mcp.stdout, /^imported 4 tools \(1 APIs, 0 replaced\) from .* into .*\nthe library now has 8 tools\n$/);

  const openai = toolenv([
    'library',
    'import',
    writeSources({ 'functions.json': openaiFunctions, 'tools.json': openaiTools }),
    '--format',
    'openai',
    '--out',
    library,
    '--json',
  ]);
  assert.equal(openai.status, 0, openai.stderr);
  assert.equal(summary(openai).tools_total, 12);

  const stats = toolenv(['library', 'stats', '--library', library, '--json']);
  assert.equal(stats.status, 0, stats.stderr);
  const s = summary(stats);
  assert.equal(s.tools, 12);
  assert.equal(s.apis, 5);
  assert.deepEqual(s.formats, { toolbench: 4, mcp: 4, openai: 4 });
  assert.equal(s.with_response_schema, 3, 'two StableToolBench templates and one MCP outputSchema');
  assert.equal((s.categories as { category: string; tools: number }[]).find((c) => c.category === 'weather')!.tools, 4);

  const text = toolenv(['library', 'stats', '--library', library]);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^tools\s+12$/m);
  assert.match(text.stdout, /^formats\s+.*toolbench 4/m);
  assert.match(text.stdout, /^weather\s+4 █+/m);

  const listed = listJson(library);
  assert.equal(listed.length, 12);
  for (const tool of listed)
    assert.deepEqual(Object.keys(tool), ['id', 'name', 'description', 'category', 'parameters', 'origin']);
  const realtime = listed.find((t) => t.name === 'Realtime Weather API')!;
  assert.deepEqual(realtime.origin, {
    format: 'toolbench',
    category: 'Weather',
    tool_name: 'WeatherAPI.com',
    api_name: 'Realtime Weather API',
  });
  assert.deepEqual((realtime.parameters as Tool['parameters']).required, ['q']);
  assert.deepEqual(listed.find((t) => t.name === 'book hotel.room')!.origin, {
    format: 'openai',
    name: 'book hotel.room',
  });

  assert.equal(listJson(library, 'weather').length, 4);
  const weatherOnly = toolenv(['library', 'list', '--library', library, '--category', 'weather']);
  assert.equal(weatherOnly.stdout.trimEnd().split('\n').length, 4);
  assert.match(weatherOnly.stdout, /^WeatherAPI_com__Realtime_Weather_API\tweather\tRealtime Weather API$/m);
});

test('re-importing the same files replaces the same tools: same ids, same count', () => {
  const library = tempDir();
  const root = writeToolbenchRoot();
  toolenv(['library', 'import', root, '--format', 'toolbench', '--out', library]);
  const before = listJson(library);
  const again = toolenv(['library', 'import', root, '--format', 'toolbench', '--out', library, '--json']);
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(summary(again), {
    library,
    format: 'toolbench',
    imported: 5,
    apis: 3,
    replaced: 5,
    skipped: [],
    tools_total: 5,
  });
  assert.deepEqual(listJson(library), before);
});

test('bad input exits 2 with one line naming the file and the problem, and nothing in the library is lost', () => {
  const library = tempDir();
  const good = toolenv(['library', 'import', writeToolbenchRoot(), '--format', 'toolbench', '--out', library]);
  assert.equal(good.status, 0, good.stderr);
  toolenv(['library', 'import', writeSources({ 's.json': mcpToolsList }), '--format', 'mcp', '--out', library]);
  const before = listJson(library);
  assert.equal(before.length, 9);

  const truncated = writeSources({ 'Weather/weatherapi_com.json': JSON.stringify(weatherapiTool).slice(0, 300) });
  assertUsageError(
    toolenv(['library', 'import', truncated, '--format', 'toolbench', '--out', library]),
    /weatherapi_com\.json: not valid JSON: .*\(line 1, column \d+\).*truncated/,
  );

  // The good files in the same folder are not imported either: one transaction, all or nothing.
  const nameless = writeSources({
    'Finance/a_stock.json': { ...stockTool, tool_name: 'Another Stock Tool' },
    'Finance/b_nameless.json': {
      ...stockTool,
      api_list: [stockTool.api_list[0], { description: 'no name', method: 'GET' }],
    },
  });
  assertUsageError(
    toolenv(['library', 'import', nameless, '--format', 'toolbench', '--out', library]),
    /b_nameless\.json at \/api_list\/1\/name: missing/,
  );

  const badSchema = writeSources({
    's.json': { tools: [{ name: 'get_weather', description: 'replaced?', inputSchema: 'location: string' }] },
  });
  assertUsageError(
    toolenv(['library', 'import', badSchema, '--format', 'mcp', '--out', library]),
    /s\.json at \/tools\/0\/inputSchema: must be a JSON Schema object, got string/,
  );

  const builtin = writeSources({ 'tools.json': { tools: [...openaiTools.tools, { type: 'file_search' }] } });
  assertUsageError(
    toolenv(['library', 'import', builtin, '--format', 'openai', '--out', library]),
    /tools\.json at \/tools\/3\/type: only function tools/,
  );

  assert.deepEqual(listJson(library), before, 'every earlier tool is still there, unchanged');
});

test('--skip-invalid imports the valid files and reports each skipped one on stderr and in the summary', () => {
  const library = tempDir();
  const root = writeSources({
    'Environment/air.json': airQualityTool,
    'Environment/broken.json': '{"tool_name": "broken", "api_list": [{"name": ',
    'Finance/stock.json': stockTool,
    'Finance/wrong.json': ['not', 'a', 'tool'],
  });
  const run = toolenv([
    'library',
    'import',
    root,
    '--format',
    'toolbench',
    '--out',
    library,
    '--skip-invalid',
    '--json',
  ]);
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^toolenv: skipped .*broken\.json: not valid JSON/);
  assert.match(lines[1]!, /^toolenv: skipped .*wrong\.json: expected a ToolBench tool object/);
  const s = summary(run);
  assert.equal(s.imported, 3);
  assert.equal(s.tools_total, 3);
  assert.deepEqual(
    (s.skipped as { file: string }[]).map((x) => x.file),
    [join(root, 'Environment/broken.json'), join(root, 'Finance/wrong.json')],
  );
  assert.match((s.skipped as { error: string }[])[1]!.error, /wrong\.json: expected a ToolBench tool object/);

  const text = toolenv(['library', 'import', root, '--format', 'toolbench', '--out', library, '--skip-invalid']);
  assert.match(text.stdout, /skipped 2 invalid files/);

  const allBad = writeSources({ 'X/a.json': '{', 'X/b.json': '[]' });
  const none = toolenv(['library', 'import', allBad, '--format', 'toolbench', '--out', library, '--skip-invalid']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /toolenv: nothing imported: all 2 files under .* were invalid\n$/);
  assert.equal(listJson(library).length, 3);
});

test('without --out the import goes to the default library directory', () => {
  const library = join(tempDir(), 'default-library');
  const run = toolenv(
    ['library', 'import', writeSources({ 'f.json': openaiFunctions }), '--format', 'openai', '--json'],
    { TOOLENV_LIBRARY: library },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(summary(run).library, library);
  assert.equal(listJson(library).length, 1);
});

test('usage mistakes exit 2 with a one-line message', () => {
  const out = tempDir();
  const source = writeSources({ 'f.json': openaiFunctions });
  const missingFormat = toolenv(['library', 'import', source, '--out', out]);
  assert.equal(missingFormat.status, 2);
  assert.match(missingFormat.stderr, /--format/);
  const badFormat = toolenv(['library', 'import', source, '--format', 'csv', '--out', out]);
  assert.equal(badFormat.status, 2);
  assert.match(
    badFormat.stderr,
    /csv.*openapi, toolbench, mcp, openai|Allowed choices are openapi, toolbench, mcp, openai/,
  );
  assertUsageError(
    toolenv(['library', 'import', join(out, 'missing.json'), '--format', 'openai', '--out', out]),
    /missing\.json: no such file or directory/,
  );
  assertUsageError(toolenv(['library', 'stats', '--library', join(out, 'none')]), /no library at/);
});

test('list survives a reader that stops early (| head): no EPIPE stack trace', () => {
  const tools: Tool[] = Array.from({ length: 3000 }, (_, i) => ({
    ...petstoreTools[4]!,
    id: `weather_forecast_${i}`,
    description: `Forecast number ${i} `.repeat(8),
  }));
  const library = writeFixtureLibrary(tools, []);
  const err = join(tempDir(), 'stderr.txt');
  for (const flags of ['--json', '']) {
    const command =
      `"${process.execPath}" "${BIN}" library list ${flags} --library ` +
      `"${library}" 2>"${err}" | head -n 2; exit \${PIPESTATUS[0]}`;
    const run = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    assert.equal(run.status, 0, 'toolenv exits 0');
    assert.equal(run.stdout.trimEnd().split('\n').length, 2);
    assert.equal(readFileSync(err, 'utf8'), '', `stderr of list ${flags}`);
  }
  assert.equal(listJson(library).length, 3000, 'read to the end, every tool comes out');
});
