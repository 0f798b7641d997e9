import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateColdStart, parseRoles } from '../../src/coldstart/generate.js';
import { readGenerationTasks } from '../../src/coldstart/tasks.js';
import type { ColdStartRun } from '../../src/coldstart/types.js';
import { packageRoot } from '../../src/paths.js';
import { startServer } from '../../src/server/serve.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { tempDir } from '../fixtures/tools.js';

const dir = process.env.TOOLENV_FULL_LIBRARY;

test('cold start over the example ToolBench tasks on the full library: accepted trajectories replay exactly', {
  skip: dir === undefined,
}, async () => {
  const server = await startServer({
    library: dir!,
    cache: join(tempDir('toolenv-cs-full-'), 'cache.db'),
    responders: [examplesResponder, synthResponder],
    port: 0,
    log: () => {},
  });
  try {
    const tasks = readGenerationTasks(join(packageRoot, 'examples', 'tasks', 'toolbench-sample.json'));
    const out = tempDir('toolenv-cs-full-out-');
    const summary = await generateColdStart({
      tasks,
      server: server.url,
      roles: parseRoles('offline'),
      model: { temperature: 0.7, maxTokens: 2048 },
      concurrency: 4,
      out,
      maxRounds: 12,
      errorRate: 0.05,
      seed: 1,
    });
    assert.equal(summary.tasks, tasks.length);
    assert.ok(summary.accepted >= Math.ceil(tasks.length / 2), JSON.stringify(summary));
    const runs = readFileSync(summary.files.sft, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ColdStartRun);
    for (const run of runs) {
      const task = tasks.find((t) => t.id === run.task_id)!;
      const post = async (path: string, body: unknown) =>
        (
          await fetch(`${server.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json() as Promise<Record<string, any>>;
      const created = await post('/v1/episodes', {
        task: { id: task.id, query: task.query },
        seed: run.seed,
        protocol: 'paraact',
        max_turns: 15,
        max_steps: 15,
        error_rate: 0.05,
      });
      for (let i = 2; i < run.messages.length; i += 2) {
        const turn = await post(`/v1/episodes/${created.id}/turns`, { text: run.messages[i]!.content });
        const next = run.messages[i + 1];
        if (next) assert.equal(turn.observation.content, next.content, `${run.task_id} turn ${i / 2}`);
      }
    }
  } finally {
    await server.close();
  }
});
