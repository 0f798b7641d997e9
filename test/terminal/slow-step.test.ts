import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { SLOW_STEP_MS, slowStep } from '../../src/terminal/slow-step.js';

test('a quick step is silent; a slow one says what it waits for, then how long it took', async () => {
  const lines: string[] = [];
  assert.equal(
    await slowStep(
      (l) => lines.push(l),
      'quick',
      async () => 1,
    ),
    1,
  );
  assert.equal(lines.length, 0);
  assert.equal(
    await slowStep(
      (l) => lines.push(l),
      'loading the index',
      () => sleep(SLOW_STEP_MS * 2, 2),
    ),
    2,
  );
  assert.equal(lines.length, 2);
  assert.equal(lines[0], 'toolenv: loading the index…');
  assert.match(lines[1]!, /^toolenv: loading the index: done in \d+\.\d s$/);
});

test('a slow step that fails is still timed, and its error passes through', async () => {
  const lines: string[] = [];
  const failing = slowStep(
    (l) => lines.push(l),
    'mapping',
    async () => {
      await sleep(SLOW_STEP_MS * 2);
      throw new Error('boom');
    },
  );
  await assert.rejects(failing, /boom/);
  assert.equal(lines.length, 2);
});
