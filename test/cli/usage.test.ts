/** Commander's own usage errors read like the CLI's: one `toolenv:` line naming the command's help, exit code 2. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

function toolenv(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });
}

for (const [args, line] of [
  [['call'], "toolenv: missing required argument 'tool-id'; see `toolenv call --help`"],
  [['call', 'weather_forecast', '--bogus'], "toolenv: unknown option '--bogus'; see `toolenv call --help`"],
  [['call', 'x', '--jsn'], "toolenv: unknown option '--jsn' (did you mean --json?); see `toolenv call --help`"],
  [['library', 'build', '--size'], "toolenv: option '--size <n>' argument missing; see `toolenv library build --help`"],
  [['cal'], "toolenv: unknown command 'cal' (did you mean call?); see `toolenv --help`"],
] as const) {
  test(`toolenv ${args.join(' ')}: one toolenv line with a hint, exit 2`, () => {
    const run = toolenv([...args]);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stderr, `${line}\n`);
    assert.equal(run.stdout, '');
  });
}
