import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { ImportError } from '../../src/library/importers/errors.js';
import { assignIds, readImport, writeImport } from '../../src/library/importers/index.js';
import { LibraryStore } from '../../src/library/store.js';
import type { Tool } from '../../src/library/tool.js';
import {
  mcpToolsList,
  openaiFunctions,
  stockTool,
  writeSources,
  writeToolbenchRoot,
} from '../fixtures/import-sources.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const records = (dir: string): Tool[] => {
  const store = LibraryStore.open(dir);
  const all = [...store.iterate()];
  store.close();
  return all;
};

test('an import creates the library, extends it, and replaces its own earlier tools on re-import', async () => {
  const dir = tempDir();
  const toolbench = (await readImport(writeToolbenchRoot(), 'toolbench')).batch;
  assert.deepEqual(writeImport(dir, toolbench), { imported: 5, apis: 3, replaced: 0, tools_total: 5 });
  const mcp = (await readImport(writeSources({ 's.json': mcpToolsList }), 'mcp')).batch;
  assert.deepEqual(writeImport(dir, mcp), { imported: 4, apis: 1, replaced: 0, tools_total: 9 });
  const before = records(dir);
  const again = (await readImport(writeToolbenchRoot(), 'toolbench')).batch;
  assert.deepEqual(writeImport(dir, again), { imported: 5, apis: 3, replaced: 5, tools_total: 9 });
  assert.deepEqual(
    records(dir)
      .map((t) => t.id)
      .sort(),
    before.map((t) => t.id).sort(),
  );
  const store = LibraryStore.open(dir);
  assert.deepEqual(store.stats().formats, { toolbench: 5, mcp: 4 });
  assert.equal(store.stats().apis, 4);
  store.close();
});

test('a tool whose id another source already holds gets its own id; nothing is overwritten', async () => {
  // The fixture library holds `weather_forecast` from an OpenAI spec named "weather.forecast".
  const dir = writeFixtureLibrary();
  const doc = {
    tools: [
      {
        name: 'weather_forecast',
        description: 'MCP weather forecast',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  };
  const batch = (await readImport(writeSources({ 'm.json': doc }), 'mcp')).batch;
  assert.equal(writeImport(dir, batch).tools_total, petstoreTools.length + 1);
  const all = records(dir);
  assert.deepEqual(
    all.find((t) => t.id === 'weather_forecast'),
    petstoreTools[4],
    'the earlier tool is untouched',
  );
  const mcp = all.find((t) => t.origin.format === 'mcp')!;
  assert.match(mcp.id, /^weather_forecast_[0-9a-f]{8}$/);
  // Re-importing finds the same id and replaces its own record.
  const again = (await readImport(writeSources({ 'm.json': doc }), 'mcp')).batch;
  assert.deepEqual(writeImport(dir, again), {
    imported: 1,
    apis: 1,
    replaced: 1,
    tools_total: petstoreTools.length + 1,
  });
  assert.equal(again.tools[0]!.id, mcp.id);
});

test('assignIds separates equal ids within one batch, the same way on every run', async () => {
  const twice = { ...stockTool, api_list: [stockTool.api_list[0], stockTool.api_list[0]] };
  const root = writeSources({ 'Finance/a.json': twice, 'Markets/a.json': stockTool });
  const ids = async () => {
    const { tools } = (await readImport(root, 'toolbench')).batch;
    assignIds(tools, () => undefined);
    return tools.map((t) => t.id);
  };
  const first = await ids();
  assert.equal(new Set(first).size, 3);
  assert.equal(first[0], 'Stock_Quotes__quote');
  assert.deepEqual(await ids(), first);
});

test('the origin, not the id, decides what counts as the same tool', () => {
  const tool = (id: string, name: string): Tool => ({
    id,
    name,
    description: name,
    category: 'tools',
    parameters: { type: 'object', properties: {} },
    examples: [],
    origin: { format: 'openai', name },
  });
  const existing = new Map([
    ['a', tool('a', 'a')],
    ['b', tool('b', 'other b')],
  ]);
  const batch = [tool('a', 'a'), tool('b', 'b')];
  assert.equal(
    assignIds(batch, (id) => existing.get(id)),
    1,
  );
  assert.equal(batch[0]!.id, 'a');
  assert.notEqual(batch[1]!.id, 'b');
});

test('a failed write leaves the library as it was', async () => {
  const dir = tempDir();
  writeImport(dir, (await readImport(writeSources({ 'f.json': openaiFunctions }), 'openai')).batch);
  const before = records(dir);
  const batch = (await readImport(writeToolbenchRoot(), 'toolbench')).batch;
  // A record the store cannot hold (no name), last in the batch, makes the transaction fail after the others went in.
  batch.tools.push({ ...batch.tools[0]!, id: 'broken', name: null as unknown as string });
  assert.throws(() => writeImport(dir, batch));
  assert.deepEqual(records(dir), before);
});

test(
  'OpenAPI documents import one file at a time; two versions ' + 'of one API keep separate API ids and documents',
  async () => {
    const dir = writeSources({
      'bad/notes.json': { hello: 'world' },
      'v1/petstore.json': petstoreApi.document,
      'v2/petstore.yaml': stringify(petstoreApi.document),
    });
    await assert.rejects(
      readImport(dir, 'openapi'),
      (e: Error) => e instanceof ImportError && e.message.includes('notes.json'),
    );
    const { batch, skipped } = await readImport(dir, 'openapi', { skipInvalid: true });
    assert.deepEqual(
      skipped.map((s) => s.file),
      [`${dir}/bad/notes.json`],
    );
    assert.equal(batch.apis.length, 2);
    const [first, second] = batch.apis.map((a) => a.api_id);
    assert.equal(second, `${first}_2`);
    const library = tempDir();
    assert.equal(writeImport(library, batch).tools_total, 8);
    const store = LibraryStore.open(library);
    assert.equal(store.apiOperations(first!).length, 4);
    assert.equal(store.apiOperations(second!).length, 4);
    assert.deepEqual(store.apiDocument(second!), petstoreApi.document);
    store.close();
  },
);
