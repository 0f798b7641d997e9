import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_INTERVAL_MS, logInterval, logProgress } from '../../src/terminal/progress.js';

test(
  'progress written to a log is a line every interval and one at the end of a stage; ' + 'a short stage writes none',
  (t) => {
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
    assert.deepEqual(lines, [
      'toolenv: long 40/100 tasks (40%, 10 s, ~15 s left)\n',
      'toolenv: long 100/100 tasks (100%, 13 s)\n',
    ]);
  },
);

test(
  'a job of short stages is not silent: ' + 'a line once the job has written none for the interval, whatever the stage',
  (t) => {
    const lines: string[] = [];
    t.mock.method(process.stderr, 'write', (chunk: string) => {
      lines.push(chunk);
      return true;
    });
    let clock = 0;
    const progress = logProgress('items', () => clock);
    progress.update('tools', 0, 1);
    clock = 6000;
    progress.update('tools', 1, 1);
    progress.update('links', 0, 1);
    clock = 10_500;
    progress.update('links', 1, 1);
    progress.update('rules', 0, 2);
    clock = 14_000;
    progress.update('rules', 1, 2);
    progress.stop();
    t.mock.restoreAll();
    assert.deepEqual(lines, ['toolenv: links 1/1 items (100%, 5 s)\n']);
  },
);

test('TOOLENV_PROGRESS_SECONDS sets the interval; 0 writes every update; anything else keeps 10 s', () => {
  assert.equal(logInterval({ TOOLENV_PROGRESS_SECONDS: '2.5' }), 2500);
  assert.equal(logInterval({ TOOLENV_PROGRESS_SECONDS: '0' }), 0);
  for (const text of [undefined, '', 'soon', '-1'])
    assert.equal(logInterval({ TOOLENV_PROGRESS_SECONDS: text }), LOG_INTERVAL_MS);
});
