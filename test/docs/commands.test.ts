import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

/** Shell lines of the README's and docs' fenced blocks that start a command with a bare `toolenv`. */
function bareCommands(page: string): string[] {
  const found: string[] = [];
  let shell = false;
  let fenced = false;
  const lines = readFileSync(join(packageRoot, page), 'utf8').split('\n');
  lines.forEach((line, i) => {
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      shell = !fenced && ['sh', 'bash', 'shell'].includes(fence[1]!);
      fenced = !fenced;
      return;
    }
    if (fenced && shell && /(^\s*|&&\s+|;\s+|\|\s+|\$\()toolenv /.test(line))
      found.push(`${page}:${i + 1}: ${line.trim()}`);
  });
  return found;
}

test('docs run the CLI as a fresh clone has it: npx toolenv, not a bare toolenv that is not on PATH', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(packageRoot, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => `docs/${n}`),
  ];
  const bare = pages.flatMap(bareCommands);
  assert.deepEqual(bare, []);
});
