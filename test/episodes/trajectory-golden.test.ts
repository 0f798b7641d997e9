import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chatRow, type ExportedTrajectory } from '../../src/chat/export.js';
import type { Tool } from '../../src/library/tool.js';
import type { RunningServer } from '../../src/server/serve.js';
import { call, createEpisode, episodeTools, json, post, search, startEpisodeServer, step } from './fixture.js';
import { ADD, ANSWER, EXECUTE, EXPLORE, GET, NEXT, TASK, withGraph } from './paraact-text.js';

/**
 * What the server answers about scripted episodes (the trajectory as JSON and JSON lines, the rewards, the exported
 * chat row), compared byte for byte with what it answered before episodes packed their finished steps and turns
 * (issue #31). Clock readings and episode ids are the only parts written over. `TOOLENV_WRITE_GOLDEN=1` rewrites
 * the file, for a change that means to alter these answers.
 */
const GOLDEN = join(import.meta.dirname, '../../../test/fixtures/episode-golden.json');

/** Clock readings (escaped too, inside observation texts) and the episode's id, written over. */
function stable(text: string, id: string): string {
  return text
    .replaceAll(id, 'EPISODE')
    .replace(/(\\?"(?:created_at|started_at)\\?":\\?")[^"\\]*/g, '$1T')
    .replace(/(\\?"(?:wall_ms|latency_ms)\\?":)[-0-9.e+]+/g, '$10');
}

async function answers(url: string, id: string): Promise<Record<string, string>> {
  const read = async (path: string) => stable(await (await fetch(`${url}/v1/episodes/${id}${path}`)).text(), id);
  const trajectory = JSON.parse(await (await fetch(`${url}/v1/episodes/${id}`)).text()) as ExportedTrajectory;
  const tools = new Map<string, Tool>(episodeTools.map((tool) => [tool.id, tool]));
  return {
    json: await read(''),
    jsonl: await read('?format=jsonl'),
    rewards: await read('/rewards'),
    chat_row: stable(JSON.stringify(chatRow(trajectory, tools)), id),
  };
}

const turn = async (url: string, id: string, body: unknown) => json(await post(`${url}/v1/episodes/${id}/turns`, body));

/** Each scripted episode, run against a fresh server, then what the server answers about it. */
const scripts: Record<string, (url: string) => Promise<string>> = {
  async paraact(url) {
    const { id } = await createEpisode(url, { task: TASK, seed: 3 });
    await turn(url, id, { text: EXPLORE });
    await turn(url, id, {
      text: '<think>Ünïcödé … and a call of no plan</think>\n<tool_call>{"id": "c9"}</tool_call>',
    });
    await turn(url, id, { text: EXECUTE });
    await turn(url, id, { text: NEXT });
    await turn(url, id, { text: ANSWER });
    return id;
  },
  async paraact_cut(url) {
    const { id } = await createEpisode(url, { task: TASK, seed: 5, max_observation_chars: 256, protocol: 'react' });
    await turn(url, id, { text: '<think>Look first.</think>\n<search_tool>Add a pet</search_tool>' });
    const args = { name: `Rex ${'é'.repeat(300)}`, status: 'available' };
    await turn(url, id, {
      text: `<think>Add it.</think>\n<tool_call>${JSON.stringify({ tool: ADD, arguments: args })}</tool_call>`,
    });
    return id;
  },
  async chat(url) {
    const { id } = await createEpisode(url, { protocol: 'chat', task: TASK, seed: 4 });
    const toolCall = (callId: string, name: string, args: unknown) => ({
      id: callId,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    });
    await turn(url, id, {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('s1', 'search_tool', { query: 'Add a pet' })],
      },
    });
    await turn(url, id, {
      message: {
        role: 'assistant',
        content: 'Adding it.',
        tool_calls: [toolCall('a1', 'call_tool', { tool: ADD, arguments: { name: 'Rex', status: 'available' } })],
      },
    });
    await turn(url, id, { message: { role: 'assistant', content: 'Rex was added.' } });
    return id;
  },
  async steps(url) {
    const { id } = await createEpisode(url, { seed: 7, max_steps: 8 });
    await step(url, id, [search('pet', 3), search('note')]);
    await step(url, id, [call(ADD, { name: 'Rex', status: 'available' }), call(GET, { petId: 1 })]);
    await step(url, id, [call(ADD, { name: `big ${'x'.repeat(70 * 1024)}` })]);
    await step(url, id, [call(GET, { petId: 1 }), call('notes_test__listNotes', { tag: 'work' })]);
    await step(url, id, [call('notes_test__createNote', { title: 'Ça … va', tag: 'home' })]);
    return id;
  },
};

describe('trajectory answers, byte for byte', () => {
  let server: RunningServer;
  before(async () => {
    await withGraph();
    server = await startEpisodeServer();
  });
  after(() => server.close());

  it('GET /v1/episodes/{id} (json, jsonl), its rewards and its chat row answer as before', async () => {
    const got: Record<string, Record<string, string>> = {};
    for (const [name, script] of Object.entries(scripts))
      got[name] = await answers(server.url, await script(server.url));
    if (process.env.TOOLENV_WRITE_GOLDEN === '1') writeFileSync(GOLDEN, `${JSON.stringify(got, null, 1)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as typeof got;
    for (const name of Object.keys(scripts))
      for (const part of ['json', 'jsonl', 'rewards', 'chat_row'])
        assert.equal(got[name]![part], golden[name]![part], `${name}: ${part}`);
  });
});
