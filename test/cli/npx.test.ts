import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';

test('npx toolenv in the project prints the CLI and no npm warnings', async () => {
  const { stdout, stderr } = await promisify(execFile)('npx', ['--no-install', 'toolenv', '--version'], { cwd: packageRoot, env: { ...process.env, TOOLENV_DEBUG: '' } });
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(stdout.trim(), version);
  assert.doesNotMatch(stderr, /npm warn/i);
});

test('onnxruntime-node never runs its install script, which would fetch CUDA files from outside the npm registry', () => {
  const { allowScripts } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
  assert.equal(allowScripts['onnxruntime-node'], false);
});
