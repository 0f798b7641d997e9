import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rescore } from '../../src/episodes/rescore.js';
import type { RunningServer } from '../../src/server/serve.js';
import { expectProblem } from '../server/helpers.js';
import { tempDir } from '../fixtures/tools.js';
import { createEpisode, episodeLibrary, json, notesToolsWithClientIds, post, startEpisodeServer } from './fixture.js';

type Json = Record<string, any>;

const CREATE = 'notes_test__createNote';
const DELETE = 'notes_test__deleteNote';
const notes = { api: 'notes.test', collection: '/notes' };
/** A write task over the notes API: four assertions, so r_state moves in quarters. */
const TASK = {
  id: 'tidy-notes',
  query: 'Add a home note "Buy milk", a work note "Write report", and delete note old-1.',
  expect: [
    { assert: 'exists', ...notes, where: { title: 'Buy milk', tag: 'home' } },
    { assert: 'exists', ...notes, where: { title: 'Write report' }, matching: { tag: '^work$' } },
    { assert: 'deleted', ...notes, id: 'old-1' },
    { assert: 'count', ...notes, where: { tag: 'home' }, count: 1 },
  ],
};

describe('write tasks: r_state from the episode world', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await startEpisodeServer({ tools: notesToolsWithClientIds });
    url = server.url;
  });
  after(() => server.close());

  /** A chat episode over the notes tools: each turn's calls run natively, then the final answer. */
  async function run(turns: [string, Json][][], config: Json = {}): Promise<{ id: string; rewards: Json }> {
    const tools = notesToolsWithClientIds.map((t) => t.id);
    const { id } = config.id ? config : await createEpisode(url, { protocol: 'chat', task: TASK, tools, seed: 1 });
    for (const [n, calls] of turns.entries()) {
      const tool_calls = calls.map(([name, args], i) => ({
        id: `c${n}-${i}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      }));
      await json(await post(`${url}/v1/episodes/${id}/turns`, { message: { role: 'assistant', tool_calls } }));
    }
    await json(await post(`${url}/v1/episodes/${id}/turns`, { message: { role: 'assistant', content: 'Done.' } }));
    return { id, rewards: await json(await fetch(`${url}/v1/episodes/${id}/rewards`)) };
  }
  const held = async (id: string) =>
    (await json(await fetch(`${url}/v1/episodes/${id}`))).state_checks.map((c: Json) => [c.held, c.matched]);

  it('a full solve: every assertion holds, r_state 1, R_ans 1.5 read off the world', async () => {
    const { id, rewards } = await run([
      [
        [CREATE, { title: 'Buy milk', tag: 'home' }],
        [CREATE, { title: 'Write report', tag: 'work' }],
      ],
      [[DELETE, { noteId: 'old-1' }]],
    ]);
    assert.deepEqual(await held(id), [
      [true, 1],
      [true, 1],
      [true, 1],
      [true, 1],
    ]);
    assert.deepEqual([rewards.r_state, rewards.state_success], [1, true]);
    assert.deepEqual(
      [rewards.answer_source, rewards.pattern, rewards.r_ans, rewards.success],
      ['state', '111', 1.5, true],
    );
    assert.equal(rewards.r_traj, 1.5, 'no reference tools: R_traj is γ_ans·R_ans');

    // Saved as eval saves it, the run rescores offline to the same rewards (`toolenv reward`).
    const file = join(tempDir('toolenv-state-'), 'run.json');
    writeFileSync(file, await (await fetch(`${url}/v1/episodes/${id}`)).text());
    const summary = await rescore({
      files: [file],
      library: await episodeLibrary(notesToolsWithClientIds),
      onFile: (_, offline) => assert.deepEqual(offline, rewards),
    });
    assert.deepEqual([summary.mean.r_state, summary.state], [1, { runs: 1, succeeded: 1 }]);
    const trajectory = JSON.parse(readFileSync(file, 'utf8'));
    delete trajectory.state_checks;
    writeFileSync(file, JSON.stringify(trajectory));
    await assert.rejects(
      rescore({ files: [file], library: tempDir('toolenv-none-') }),
      /the task has 4 expect assertions and the run 0 state_checks/,
    );
  });

  it('a partial solve: two of four hold (the home note, and so the home count), r_state 0.5, R_ans 0.5', async () => {
    const { id, rewards } = await run([[[CREATE, { title: 'Buy milk', tag: 'home' }]]]);
    assert.deepEqual(await held(id), [
      [true, 1],
      [false, 0],
      [false, 0],
      [true, 1],
    ]);
    assert.deepEqual([rewards.r_state, rewards.state_success], [0.5, false]);
    assert.deepEqual([rewards.pattern, rewards.r_ans, rewards.success], ['011', 0.5, false]);
  });

  it('wrong resources: tags swapped and another note deleted; only the home count holds, r_state 0.25', async () => {
    const { id, rewards } = await run([
      [
        [CREATE, { title: 'Buy milk', tag: 'work' }],
        [CREATE, { title: 'Write report', tag: 'home' }],
        [DELETE, { noteId: 'old-2' }],
      ],
    ]);
    assert.deepEqual(await held(id), [
      [false, 0],
      [false, 0],
      [false, 0],
      [true, 1],
    ]);
    assert.deepEqual([rewards.r_state, rewards.state_success, rewards.r_ans], [0.25, false, 0.5]);
  });

  it('a delete: the delete alone holds, and creating the id again undoes it', async () => {
    const tools = notesToolsWithClientIds.map((t) => t.id);
    const episode = await createEpisode(url, { protocol: 'chat', task: TASK, tools, seed: 1 });
    const deleted = await run([[[DELETE, { noteId: 'old-1' }]]], episode);
    // The home count (1) fails with no home note: one of four.
    assert.deepEqual(await held(deleted.id), [
      [false, 0],
      [false, 0],
      [true, 1],
      [false, 0],
    ]);
    assert.deepEqual([deleted.rewards.r_state, deleted.rewards.r_ans], [0.25, 0.5]);

    const again = await run([
      [[DELETE, { noteId: 'old-1' }]],
      [[CREATE, { id: 'old-1', title: 'Buy milk', tag: 'home' }]],
    ]);
    assert.deepEqual(await held(again.id), [
      [true, 1],
      [false, 0],
      [false, 0],
      [true, 1],
    ]);
    assert.equal(again.rewards.r_state, 0.5);
  });

  it('groups: r_state is a component with its own advantage, weighted by λ_state', async () => {
    const tools = notesToolsWithClientIds.map((t) => t.id);
    const group = await json(await post(`${url}/v1/groups`, { n: 2, protocol: 'chat', task: TASK, tools }), 201);
    const [full, partial] = group.episodes.map((e: Json) => ({ id: e.id }));
    await run(
      [
        [
          [CREATE, { title: 'Buy milk', tag: 'home' }],
          [CREATE, { title: 'Write report', tag: 'work' }],
        ],
        [[DELETE, { noteId: 'old-1' }]],
      ],
      full,
    );
    await run([[[CREATE, { title: 'Buy milk', tag: 'home' }]]], partial);
    const { episodes } = await json(await fetch(`${url}/v1/groups/${group.id}/advantages`));
    assert.deepEqual(
      episodes.map((e: Json) => e.r_state),
      [1, 0.5],
    );
    // Two rollouts, 1 and 0.5: (R − μ) / σ with σ the sample deviation √(2·0.25²) = 0.3536 → ±0.7071.
    assert.ok(Math.abs(episodes[0].a_state - Math.SQRT1_2) < 1e-4, String(episodes[0].a_state));
    assert.ok(Math.abs(episodes[1].a_state + Math.SQRT1_2) < 1e-4, String(episodes[1].a_state));
    for (const e of episodes) {
      const sum = 1 * e.a_traj + 0.5 * e.a_phase + 1 * e.a_state;
      assert.ok(Math.abs(e.advantage - sum) < 1e-9, `${e.advantage} ≠ λτ·a_traj + λp·a_phase + λ_state·a_state`);
    }

    const { groups } = await json(
      await post(`${url}/v1/advantages`, {
        groups: [
          [
            { r_step: null, r_phase: 0, r_traj: 1, r_state: 1 },
            { r_step: null, r_phase: 0, r_traj: 1, r_state: 0 },
          ],
        ],
        lambda: { lambda_state: 2 },
      }),
    );
    assert.ok(Math.abs(groups[0][0].advantage - 2 * groups[0][0].a_state) < 1e-9, JSON.stringify(groups));
  });

  it('an answer-only task keeps its rewards and advantages without any state member', async () => {
    const task = { id: 'q', query: 'What is note n1 about?', answer: 'milk' };
    const group = await json(await post(`${url}/v1/groups`, { n: 2, protocol: 'chat', task }), 201);
    for (const e of group.episodes)
      await json(await post(`${url}/v1/episodes/${e.id}/turns`, { message: { role: 'assistant', content: 'milk' } }));
    const rewards = await json(await fetch(`${url}/v1/episodes/${group.episodes[0].id}/rewards`));
    assert.equal(rewards.answer_source, 'no_evidence');
    for (const member of ['r_state', 'state_success']) assert.equal(member in rewards, false, member);
    const { episodes } = await json(await fetch(`${url}/v1/groups/${group.id}/advantages`));
    assert.deepEqual(Object.keys(episodes[0]).sort(), [
      'a_phase',
      'a_step',
      'a_traj',
      'advantage',
      'id',
      'r_phase',
      'r_step',
      'r_traj',
    ]);
    const summary = await json(await fetch(`${url}/v1/episodes/${group.episodes[0].id}`));
    assert.equal('state_checks' in summary, false);
  });

  it('a wrong assertion is refused at episode creation with a pointer to its member', async () => {
    const bad = { ...TASK, expect: [TASK.expect[0], { assert: 'count', ...notes, count: -1 }] };
    const problem = await expectProblem(await post(`${url}/v1/episodes`, { task: bad }), 400);
    assert.match(JSON.stringify(problem), /\/task\/expect\/1\/count/);
  });
});
