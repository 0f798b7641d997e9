/** `evaluate` end to end: ToolBench queries mapped onto a served library, every agent with the heuristic policy. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { AgentRun } from '../../src/agent/types.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { tempDir } from '../fixtures/tools.js';
import { faultyProxy } from '../agent/proxy.js';
import { startTestServer } from '../server/helpers.js';
import { writeEvalLibrary, writeToolbenchQueries } from './fixture.js';

test('eval runs ToolBench queries against a served library for every agent and scores them', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const out = tempDir();
  const progress: number[] = [];
  const report = await evaluate({
    tasks: writeToolbenchQueries(),
    server: server.url,
    library: '',
    agents: ['paraact', 'react', 'parallel'],
    policy: 'heuristic',
    concurrency: 3,
    seed: 1,
    errorRate: 0,
    out,
    onProgress: (done) => progress.push(done),
  });

  assert.equal(report.format, 'toolbench');
  assert.deepEqual([report.tasks.total, report.tasks.scored], [6, 5]);
  assert.deepEqual(
    report.tasks.unmappable.map((u) => u.id),
    ['106'],
  );
  assert.deepEqual(
    progress,
    Array.from({ length: 16 }, (_, i) => i),
    'one tick per task-run (5 tasks × 3 agents)',
  );

  const byAgent = new Map(report.results.map((r) => [r.summary.agent, r]));
  for (const [agent, { summary, scores }] of byAgent) {
    assert.equal(scores.length, 5, agent);
    assert.deepEqual(scores.map((s) => s.task_id).sort(), ['101', '102', '103', '104', '105'], agent);
    assert.equal(summary.finish.error, 0, `${agent}: ${JSON.stringify(scores.map((s) => s.error))}`);
    assert.equal(summary.finish.answer, 5, agent);
    assert.ok(summary.stats.path.mean! > 0.5, `${agent} path ${summary.stats.path.mean}`);
    assert.ok(
      summary.stats.coverage.mean! >= summary.stats.path.mean!,
      `${agent}: a tool is called only after search surfaced it`,
    );
    assert.ok(summary.stats.success.mean! > 0, `${agent} success`);
    assert.ok(summary.stats.tokens.mean! > 0, agent);
    for (const s of scores) {
      // 105's third reference is missing from the library: a miss in path and coverage, left out of their mapped
      // variants.
      assert.equal(s.references, s.task_id === '101' ? 1 : s.task_id === '105' ? 3 : 2, `${agent} ${s.task_id}`);
      assert.equal(s.unmapped_references, s.task_id === '105' ? 1 : 0, `${agent} ${s.task_id}`);
      if (s.task_id === '105') {
        assert.ok(s.path! <= 2 / 3 && s.coverage! <= 2 / 3, `${agent} 105: path ${s.path}, coverage ${s.coverage}`);
        assert.equal(s.path, (s.path_mapped! * 2) / 3);
        assert.equal(s.coverage, (s.coverage_mapped! * 2) / 3);
        assert.equal(
          s.success,
          false,
          `${agent} 105: the fallback needs every reference tool, and one is not in the library`,
        );
      } else {
        assert.deepEqual([s.path, s.coverage], [s.path_mapped, s.coverage_mapped], `${agent} ${s.task_id}`);
      }
      assert.equal(s.injected_errors, 0);
      assert.ok(s.seed !== null);
    }
    assert.ok(summary.stats.path.mean! < summary.stats.path_mapped.mean!, agent);
  }
  const paraact = byAgent.get('paraact')!.summary.stats;
  const react = byAgent.get('react')!.summary.stats;
  assert.ok(
    paraact.actions_per_turn.mean! > 1,
    `ParaAct acts in parallel: ${paraact.actions_per_turn.mean} actions per turn`,
  );
  assert.ok(paraact.turns.mean! < react.turns.mean!, `ParaAct ${paraact.turns.mean} turns, ReAct ${react.turns.mean}`);
  assert.ok(react.actions_per_turn.mean! <= 1, `ReAct takes one action per turn: ${react.actions_per_turn.mean}`);

  // Files: one AgentRun per task-run, report.json and report.md.
  const files = readdirSync(join(out, 'trajectories', 'react')).sort();
  assert.deepEqual(files, ['101.run1.json', '102.run1.json', '103.run1.json', '104.run1.json', '105.run1.json']);
  const saved = JSON.parse(readFileSync(join(out, 'trajectories', 'paraact', '102.run1.json'), 'utf8')) as AgentRun;
  assert.equal(saved.task_id, '102');
  assert.equal(saved.agent, 'paraact');
  assert.equal(saved.trajectory!.task?.id, '102');
  assert.equal(saved.trajectory!.seed, byAgent.get('paraact')!.scores.find((s) => s.task_id === '102')!.seed);
  assert.equal(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).tasks.scored, 5);
  assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /\| paraact \| [\d.]+ \|/);
});

test('a seed makes runs reproducible: the same episode seeds meet the same injected errors', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const tasks = writeToolbenchQueries();
  const once = () =>
    evaluate({
      tasks,
      server: server.url,
      library: '',
      agents: ['paraact'],
      policy: 'heuristic',
      runs: 2,
      seed: 7,
      errorRate: 0.4,
    });
  const [a, b] = [await once(), await once()];
  const view = (scores: (typeof a.results)[number]['scores']) =>
    scores
      .map((s) => [s.task_id, s.run, s.seed, s.injected_errors, s.calls, s.turns, s.success])
      .sort((x, y) => String(x).localeCompare(String(y)));
  assert.deepEqual(view(a.results[0]!.scores), view(b.results[0]!.scores));
  assert.ok(a.results[0]!.summary.injected_errors_total > 0, 'error rate 0.4 injects errors');
  const seeds = a.results[0]!.scores.map((s) => s.seed);
  assert.equal(new Set(seeds).size, seeds.length, 'every task-run has its own episode seed');
  assert.ok(a.results[0]!.summary.stats.success.std !== null, 'two runs give a standard deviation');
});

test(
  'tasks with an expected answer are scored by it; ' + 'a file whose references all miss the library is an input error',
  async (t) => {
    const server = await startTestServer({ library: await writeEvalLibrary() });
    t.after(() => server.close());
    const dir = tempDir();
    const own = join(dir, 'own.jsonl');
    writeFileSync(
      own,
      [
        {
          id: 'pet',
          query: 'Find the pet with id 7 in the pet store.',
          reference_tools: ['petstore_test__getPetById'],
          answer: 'no such words in any answer',
        },
        { id: 'free', query: 'What is the current weather in London?', meta: { split: 'I1' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const report = await evaluate({
      tasks: own,
      server: server.url,
      library: '',
      agents: ['react'],
      policy: 'heuristic',
      errorRate: 0,
    });
    const [pet, free] = ['pet', 'free'].map((id) => report.results[0]!.scores.find((s) => s.task_id === id)!);
    assert.deepEqual([pet!.success, pet!.success_by], [false, 'answer']);
    // No expected answer, no reference tool, no judge: the run counts for turns and tokens, not for success.
    assert.equal(free!.finish, 'answer');
    assert.deepEqual([free!.success, free!.success_by, free!.path, free!.coverage], [null, 'unscored', null, null]);
    assert.deepEqual(report.tasks.unscored, [{ id: 'free', line: 2 }]);
    assert.deepEqual(report.results[0]!.summary.success_by, {
      answer: 1,
      state: 0,
      judge: 0,
      fallback: 0,
      unscored: 1,
    });
    assert.equal(report.results[0]!.summary.stats.success.mean, 0, 'only the task with an expected answer is scored');
    assert.deepEqual(report.tasks.meta, { free: { split: 'I1' } });

    const missing = join(dir, 'missing.jsonl');
    writeFileSync(missing, JSON.stringify({ id: 'x', query: 'q', reference_tools: ['not_in_library'] }));
    await assert.rejects(
      evaluate({ tasks: missing, server: server.url, library: '', agents: ['react'], policy: 'heuristic' }),
      /no task of .*missing\.jsonl has a reference tool in the served library/,
    );
  },
);

test('a run whose trajectory cannot be fetched is scored on the calls the agent client saw, not as zero', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const proxy = await faultyProxy(
    server.url,
    (method, path) => method === 'GET' && /^\/v1\/episodes\/[^/?]+$/.test(path),
  );
  t.after(() => proxy.close());
  const out = tempDir();
  const report = await evaluate({
    tasks: writeToolbenchQueries(),
    server: proxy.url,
    library: '',
    agents: ['paraact'],
    policy: 'heuristic',
    seed: 1,
    errorRate: 0,
    out,
  });
  const { summary, scores } = report.results[0]!;
  assert.equal(summary.finish.answer, 5);
  assert.ok(summary.stats.path.mean! > 0.5, `path ${summary.stats.path.mean}`);
  assert.ok(summary.stats.success.mean! > 0, `success ${summary.stats.success.mean}`);
  for (const s of scores) {
    assert.match(s.trajectory_error!, /answered 500: the proxy failed this request/, s.task_id);
    assert.ok(s.calls > 0 && s.searches > 0, s.task_id);
    assert.ok(s.seed !== null, s.task_id);
  }
  const episodes = scores.map((s) => s.episode_id);
  assert.ok(
    episodes.every((id) => proxy.seen.includes(`DELETE /v1/episodes/${id}`)),
    'every episode is deleted',
  );
  assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /no trajectory \(scored from the calls the agent saw\)/);
});

test('eval passes the API key to a server that wants one, and says so when it is missing or wrong', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary(), apiKey: 's3cret' });
  t.after(() => server.close());
  const tasks = writeToolbenchQueries();
  const options = {
    tasks,
    server: server.url,
    library: '',
    agents: ['parallel' as const],
    policy: 'heuristic',
    errorRate: 0,
  };
  await assert.rejects(evaluate(options), /refused the requests without an API key \(401\); pass --api-key/);
  await assert.rejects(evaluate({ ...options, apiKey: 'wrong' }), /refused the API key given/);
  const report = await evaluate({ ...options, apiKey: 's3cret' });
  assert.equal(report.tasks.scored, 5);
  assert.equal(report.results[0]!.summary.finish.answer, 5);
});

test(
  'with --judge, the server judges each answer (Table 9 verdicts in the rewards), success is Quality and ' +
    'Faithfulness YES; a failing judge flags the run',
  async (t) => {
    const server = await startTestServer({ library: await writeEvalLibrary() });
    t.after(() => server.close());
    let asked = 0;
    // A judge endpoint that calls an answer complete and faithful when it mentions Paris,
    // and is down for the stock task.
    const judge = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        asked++;
        const user = (JSON.parse(text) as { messages: { content: string }[] }).messages[1]!.content;
        if (user.includes('AAPL')) {
          res.statusCode = 500;
          return res.end('judge down');
        }
        const paris = /# Final answer[\s\S]*Paris/.test(user);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            choices: [
              {
                message: {
                  content: JSON.stringify({
                    quality: paris ? 'YES' : 'NO',
                    faithfulness: 'YES',
                    utility: 'YES',
                    reason: 'checked',
                  }),
                },
              },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => judge.listen(0, '127.0.0.1', resolve));
    t.after(() => judge.close());
    const spec = `openai:judge@http://127.0.0.1:${(judge.address() as AddressInfo).port}`;
    const report = await evaluate({
      tasks: writeToolbenchQueries(),
      server: server.url,
      library: '',
      agents: ['paraact'],
      policy: 'heuristic',
      errorRate: 0,
      concurrency: 1,
      judge: spec,
    });
    const scores = report.results[0]!.scores;
    assert.ok(scores.every((s) => s.success_by === 'judge'));
    const failed = scores.filter((s) => s.reward_flag?.startsWith('the judge failed'));
    assert.equal(failed.length, 1, JSON.stringify(scores.map((s) => s.reward_flag)));
    assert.equal(failed[0]!.success, false);
    assert.equal(failed[0]!.r_ans, null);
    // The failing task was asked three times (two retries); every other answered task once.
    assert.equal(asked, 3 + scores.filter((s) => !failed.includes(s) && s.finish === 'answer').length);
    for (const s of scores.filter((x) => !failed.includes(x) && x.finish === 'answer')) {
      const paris = /Paris/.test(s.answer ?? '');
      assert.equal(s.success, paris, s.task_id);
      assert.equal(s.r_ans, paris ? 1.5 : 0.5, s.task_id);
      assert.match(s.judge_reason!, /^Q\/F\/U (YES|NO)\/YES\/YES: checked$/);
    }
    assert.equal(report.judge, spec);
  },
);
