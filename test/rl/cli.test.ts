/**
 * `toolenv reward` as a user runs it: saved runs re-scored offline by the real bin/toolenv, against the live rewards.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { createEpisode, json, post, startEpisodeServer } from '../episodes/fixture.js';
import { ANSWER, EXECUTE, EXPLORE, NEXT, TASK, withGraph } from '../episodes/paraact-text.js';
import { tempDir } from '../fixtures/tools.js';

const BIN = join(packageRoot, 'bin', 'toolenv');
const toolenv = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TOOLENV_DEBUG: '' } });

test(
  'toolenv reward scores saved runs exactly as the server did, ' + 'from JSON, JSON lines and eval run files',
  async (t) => {
    const library = await withGraph();
    const server = await startEpisodeServer();
    t.after(() => server.close());
    const episode = await createEpisode(server.url, { task: TASK, seed: 5 });
    for (const text of [EXPLORE, EXECUTE, NEXT, ANSWER])
      await json(await post(`${server.url}/v1/episodes/${episode.id}/turns`, { text }));
    const live = await json(await fetch(`${server.url}/v1/episodes/${episode.id}/rewards`));
    const trajectory = await json(await fetch(`${server.url}/v1/episodes/${episode.id}`));
    const lines = await (await fetch(`${server.url}/v1/episodes/${episode.id}?format=jsonl`)).text();

    const dir = tempDir('toolenv-reward-');
    const files = [join(dir, 'episode.json'), join(dir, 'episode.jsonl'), join(dir, 'run.json')];
    writeFileSync(files[0]!, JSON.stringify(trajectory));
    writeFileSync(files[1]!, lines);
    writeFileSync(files[2]!, JSON.stringify({ task_id: TASK.id, agent: 'paraact', trajectory }, null, 2));

    const run = toolenv(['reward', ...files, '--library', library, '--json']);
    assert.equal(run.status, 0, run.stderr);
    const out = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    assert.equal(out.length, 4);
    for (const [i, file] of files.entries()) {
      assert.equal(out[i]!.file, file);
      assert.deepEqual(out[i]!.rewards, live, file);
    }
    assert.deepEqual(out[3], {
      files: 3,
      flagged: 0,
      graph: true,
      mean: { r_step: live.r_step, r_phase: live.r_phase, r_traj: live.r_traj, r_ans: live.r_ans },
    });

    // Without the graph L2 and L3 are not scored; given verdicts score as given.
    const bare = toolenv([
      'reward',
      files[0]!,
      '--library',
      tempDir('toolenv-nograph-'),
      '--verdicts',
      '{"quality": "YES", "faithfulness": "YES", "utility": "NO"}',
      '--json',
    ]);
    assert.equal(bare.status, 0, bare.stderr);
    const rescored = JSON.parse(bare.stdout.split('\n')[0]!) as Record<string, any>;
    assert.equal(rescored.rewards.graph, false);
    assert.equal(rescored.rewards.phases[0].l2, null);
    assert.equal(rescored.rewards.r_ans, 0.5);
    const text = toolenv(['reward', files[0]!, '--library', library]);
    assert.match(
      text.stdout,
      /episode\.json: r_step 0\.875 {2}r_phase 1\.000 {2}r_traj 2\.000 {2}r_ans 1\.500 \(rule\)/,
    );
  },
);

test('toolenv reward: a file it cannot score, or bad verdicts, is a one-line error with exit code 2', () => {
  const dir = tempDir('toolenv-reward-');
  const noTurns = join(dir, 'steps-only.json');
  writeFileSync(noTurns, JSON.stringify({ id: 'e', steps: [] }));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"turns": [');
  const badTurn = join(dir, 'bad-turn.json');
  writeFileSync(badTurn, JSON.stringify({ turns: [{ turn: 1 }], steps: [] }));
  const badReward = join(dir, 'bad-reward.json');
  writeFileSync(badReward, JSON.stringify({ turns: [], steps: [], reward: { w1: '0.1' } }));
  const cases: [string[], RegExp][] = [
    [[noTurns], /steps-only\.json: it has no "turns": only episodes that took text turns can be scored/],
    [[broken], /broken\.json: not JSON or JSON lines/],
    [[join(dir, 'missing.json')], /missing\.json: cannot read it \(ENOENT\)/],
    [[badTurn], /bad-turn\.json: \/turns\/0 must have required property/],
    [[badReward], /bad-reward\.json: \/reward\/w1 must be number/],
    [
      [noTurns, '--verdicts', '{"quality": "MAYBE"}'],
      /--verdicts: .*quality must be one of YES, PARTIAL, NO \(in any case\), got "MAYBE"/,
    ],
    [[noTurns, '--judge', 'gpt-4'], /--judge: expected openai:MODEL@URL/],
  ];
  for (const [args, message] of cases) {
    const run = toolenv(['reward', ...args]);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});
