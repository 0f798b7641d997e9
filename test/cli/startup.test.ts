/**
 * Declaring the commands loads no implementation: `--version` and `--help` read only commander and the small
 * declaration modules, so every command starts without paying for the server, SQLite, the synthesizer or the
 * retrievers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const MARK = 'toolenv-startup-test resolved ';

/** The URLs of every module `toolenv ARGS` imports, seen by a resolve hook. */
function resolvedModules(args: string[]): string[] {
  const dir = tempDir();
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write(${JSON.stringify(MARK)} + resolved.url + '\\n');
  return resolved;
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const urls = run.stderr
    .split('\n')
    .filter((line) => line.startsWith(MARK))
    .map((line) => line.slice(MARK.length));
  assert.ok(
    urls.some((url) => url.endsWith('/cli/index.js')),
    'the hook saw the CLI load',
  );
  return urls;
}

/** The packages under node_modules that the URLs come from. */
function packages(urls: string[]): string[] {
  return [...new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))].sort();
}

for (const args of [['--version'], ['--help'], ['serve', '--help'], ['library', 'build', '--help']]) {
  test(`toolenv ${args.join(' ')} loads no package but commander`, () => {
    assert.deepEqual(packages(resolvedModules(args)), ['commander']);
  });
}
