#!/usr/bin/env node
// A library subset for the GPU run: the tools the task files name, and beside each a few other operations of the same
// API (the distractors a search meets first: the same vocabulary, another verb or resource), as OpenAPI documents that
// `toolenv library import` turns into a library.
//
//   node scripts/gpu/subset.mjs docs  --library FULL --tasks DIR --siblings N --out DOCS [--whole API,API]
//   node scripts/gpu/subset.mjs check --library FULL --subset SUB --tasks DIR
//
// `docs` writes, per API a task uses, the API's document as the full library stores it (read-only from its tools.db:
// no command prints a stored document unchanged; the served one points its servers at the server) with its paths cut
// down to the kept operations: the tasks' tools and the API's first N other operations in library order (the APIs of
// --whole keep every operation). `check` then proves the import faithful: every tool a task names is in SUB, and every
// tool of SUB has the very record the full library has (id, name, description, category, method, path and the whole
// stored record), so a simulated call, a search result and a reward read the same there as here. A cut document can
// convert differently (rarely: 3 of 6,264 tools once, a schema shared with a dropped operation); `check` then exits 1
// and prints {"differ_apis": [...]}, the APIs to pass as --whole.
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const [command, ...args] = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  if (fallback === undefined) throw new Error(`subset.mjs: ${name} is required`);
  return fallback;
};
const COLUMNS = [
  'id',
  'name',
  'description',
  'category',
  'format',
  'api_id',
  'method',
  'path',
  'has_response_schema',
  'has_examples',
  'record',
];
const open = (dir) => new Database(join(dir, 'tools.db'), { readonly: true, fileMustExist: true });

/** Every tool id the task files of DIR name. */
function taskTools(dir) {
  const ids = new Set();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const task = JSON.parse(line);
      for (const id of [...(task.reference_tools ?? []), ...(task.tools ?? [])]) ids.add(id);
    }
  }
  return ids;
}

if (command === 'docs') {
  const db = open(flag('--library'));
  const siblings = Number.parseInt(flag('--siblings', '24'), 10);
  const whole = new Set(flag('--whole', '').split(',').filter(Boolean));
  const out = flag('--out');
  mkdirSync(out, { recursive: true });
  const wanted = taskTools(flag('--tasks'));
  const toolRow = db.prepare('SELECT id, api_id, method, path FROM tools WHERE id = ?');
  const apiTools = db.prepare('SELECT id, method, path FROM tools WHERE api_id = ? ORDER BY seq');
  const document = db.prepare('SELECT document FROM apis WHERE api_id = ?');
  const byApi = new Map();
  for (const id of wanted) {
    const row = toolRow.get(id);
    if (row === undefined) throw new Error(`subset.mjs: ${id} is not in the full library`);
    if (!byApi.has(row.api_id)) byApi.set(row.api_id, new Set());
    byApi.get(row.api_id).add(id);
  }
  let kept = 0;
  [...byApi.keys()].sort().forEach((apiId, index) => {
    const tools = apiTools.all(apiId);
    const keep = new Set(byApi.get(apiId));
    for (const tool of tools) {
      if (!whole.has(apiId) && keep.size >= byApi.get(apiId).size + siblings) break;
      keep.add(tool.id);
    }
    const operations = new Set(tools.filter((t) => keep.has(t.id)).map((t) => `${t.method.toLowerCase()} ${t.path}`));
    const doc = JSON.parse(gunzipSync(document.get(apiId).document).toString('utf8'));
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of Object.keys(item)) {
        if (
          ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method) &&
          !operations.has(`${method} ${path}`)
        )
          delete item[method];
      }
      if (
        !Object.keys(item).some((m) =>
          ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(m),
        )
      )
        delete doc.paths[path];
    }
    kept += keep.size;
    // Sorted file names: the importer reads a folder in order, and gives a second document with the same id a suffix.
    writeFileSync(join(out, `${String(index).padStart(5, '0')}.json`), JSON.stringify(doc));
  });
  console.log(JSON.stringify({ apis: byApi.size, task_tools: wanted.size, tools: kept, out }));
} else if (command === 'check') {
  const full = open(flag('--library'));
  const sub = open(flag('--subset'));
  const get = full.prepare(`SELECT ${COLUMNS.join(', ')} FROM tools WHERE id = ?`);
  const rows = sub.prepare(`SELECT ${COLUMNS.join(', ')} FROM tools`).all();
  const have = new Set(rows.map((r) => r.id));
  const missing = [...taskTools(flag('--tasks'))].filter((id) => !have.has(id));
  const differ = rows.filter((row) => {
    const ref = get.get(row.id);
    return ref === undefined || COLUMNS.some((c) => String(ref[c]) !== String(row[c]));
  });
  if (missing.length > 0 || differ.length > 0) {
    console.error(
      `subset.mjs: ${missing.length} task tools missing from the subset (${missing.slice(0, 3).join(', ')}), ` +
        `${differ.length} tools whose record differs from the full library's ` +
        `(${differ
          .slice(0, 3)
          .map((r) => r.id)
          .join(', ')})`,
    );
    console.log(JSON.stringify({ missing, differ_apis: [...new Set(differ.map((r) => r.api_id))].sort() }));
    process.exit(1);
  }
  console.log(JSON.stringify({ tools: rows.length, identical_to_full: true, task_tools_present: true }));
} else {
  console.error('usage: subset.mjs docs|check …');
  process.exit(2);
}
