import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import semver from 'semver';
import { packageRoot } from '../../src/paths.js';

test('npx toolenv in the project prints the CLI and no npm warnings', async () => {
  const { stdout, stderr } = await promisify(execFile)('npx', ['--no-install', 'toolenv', '--version'], {
    cwd: packageRoot,
    env: { ...process.env, TOOLENV_DEBUG: '' },
  });
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(stdout.trim(), version);
  assert.doesNotMatch(stderr, /npm warn/i);
});

test(
  'onnxruntime-node never runs its install script, ' + 'which would fetch CUDA files from outside the npm registry',
  () => {
    const { allowScripts } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
      allowScripts: Record<string, boolean>;
    };
    assert.equal(allowScripts['onnxruntime-node'], false);
  },
);

test('every locked package runs on the Node this package asks for: npm ci prints no EBADENGINE', () => {
  const read = (file: string) => JSON.parse(readFileSync(join(packageRoot, file), 'utf8')) as Record<string, unknown>;
  const floor = semver.minVersion((read('package.json').engines as { node: string }).node)!.version;
  const packages = read('package-lock.json').packages as Record<string, { engines?: { node?: string } | string[] }>;
  const refused = Object.entries(packages)
    .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node !== undefined)
    .filter(([, p]) => !semver.satisfies(floor, (p.engines as { node: string }).node))
    .map(([name, p]) => `${name} wants node ${(p.engines as { node: string }).node}`);
  assert.deepEqual(refused, [], `Node ${floor}`);
});
