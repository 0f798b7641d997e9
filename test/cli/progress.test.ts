import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_INTERVAL_MS, logProgress } from '../../src/cli/progress.js';

test('progress written to a log is a line every interval and one at the end of a stage; a short stage writes none', (t) => {
  const lines: string[] = [];
  t.mock.method(process.stderr, 'write', (chunk: string) => {
    lines.push(chunk);
    return true;
  });
  let clock = 0;
  const progress = logProgress('tasks', () => clock);
  progress.update('quick', 0, 5);
  clock = 1000;
  progress.update('quick', 5, 5);
  progress.update('long', 0, 100);
  clock += LOG_INTERVAL_MS / 2;
  progress.update('long', 10, 100);
  clock += LOG_INTERVAL_MS / 2;
  progress.update('long', 40, 100);
  clock += 1000;
  progress.update('long', 41, 100);
  clock += 2000;
  progress.update('long', 100, 100);
  progress.stop();
  t.mock.restoreAll();
  assert.deepEqual(lines, ['toolenv: long 40/100 tasks (40%, 10 s)\n', 'toolenv: long 100/100 tasks (100%, 13 s)\n']);
});
