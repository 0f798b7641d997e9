import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/server/serve.js';
import { createAjv } from '../../src/library/ajv.js';
import { episodeLibrary, json, post, startEpisodeServer } from '../episodes/fixture.js';
import { synthesizedTasks } from '../../src/tasks/synth/default-tasks.js';
import { ANSWER, EXECUTE, EXPLORE, NEXT, TASK, withGraph } from '../episodes/paraact-text.js';
import { expectProblem, rawSocket } from './helpers.js';
import { petstoreTools } from '../fixtures/tools.js';

type Json = Record<string, any>;

const OTHER_TASK = { id: 'notes', query: 'List my notes.' };

/** A WebSocket client of `/openenv/ws` that awaits one reply per message, as OpenEnv's EnvClient does. */
interface Session {
  ws: WebSocket;
  ask(message: unknown): Promise<Json>;
  /** The close code the server ended the connection with. */
  closed: Promise<number>;
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Session> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/openenv/ws`, { headers });
  const replies: Json[] = [];
  const waiting: ((reply: Json) => void)[] = [];
  ws.on('message', (data) => {
    const reply = JSON.parse(String(data)) as Json;
    const waiter = waiting.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    closed,
    ask(message) {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
      return replies.length > 0 ? Promise.resolve(replies.shift()!) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** The status of a refused WebSocket handshake. */
function refusedHandshake(url: string, headers: Record<string, string> = {}, path = '/openenv/ws'): Promise<number> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers });
  // Dropping a handshake that never opened is reported as an error: expected here.
  ws.on('error', () => {});
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode!);
      ws.terminate();
    });
    ws.once('open', () => reject(new Error('the handshake was accepted')));
  });
}

const episodeStatus = async (url: string, id: string) => (await fetch(`${url}/v1/episodes/${id}`)).status;

describe('OpenEnv over HTTP', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    // As `serve` without --openenv-tasks: a reset without a task plays one synthesized from the library.
    server = await startEpisodeServer({ openenvTasks: synthesizedTasks(await withGraph()) });
    url = server.url;
  });
  after(() => server.close());

  it('serves health, metadata, the schemas and a document of its own routes', async () => {
    assert.deepEqual(await json(await fetch(`${url}/openenv/health`)), { status: 'healthy' });
    const metadata = await json(await fetch(`${url}/openenv/metadata`));
    assert.equal(metadata.name, 'ToolEnv');
    assert.match(metadata.description, /\/mcp/);
    assert.equal(typeof metadata.version, 'string');
    const schema = await json(await fetch(`${url}/openenv/schema`));
    assert.deepEqual(schema.action, {
      title: 'ToolEnvAction',
      description: schema.action.description,
      type: 'object',
      properties: { text: schema.action.properties.text },
      required: ['text'],
      additionalProperties: false,
    });
    assert.deepEqual(Object.keys(schema).sort(), ['action', 'observation', 'state']);
    const document = await json(await fetch(`${url}/openenv/openapi.json`));
    assert.equal(typeof document.info.version, 'string');
    assert.deepEqual(document.servers, [{ url: `${url}/openenv` }]);
    for (const path of ['/reset', '/step', '/state', '/ws', '/health', '/metadata', '/schema'])
      assert.ok(document.paths[path], path);
    assert.equal(document.paths['/v1/tools'], undefined);
    await expectProblem(await fetch(`${url}/openenv/ws`), 426);
  });

  it('reset starts an episode, steps are its text turns, and the last step is rewarded with its R_traj', async () => {
    const schema = await json(await fetch(`${url}/openenv/schema`));
    const ajv = createAjv();
    const observation = ajv.compile(schema.observation);
    const state = ajv.compile(schema.state);

    const reset = await json(await post(`${url}/openenv/reset`, { task: TASK, seed: 3, episode_id: 'mine' }));
    assert.equal(reset.reward, null);
    assert.equal(reset.done, false);
    const id = reset.observation.episode_id as string;
    assert.notEqual(id, 'mine', 'the server names episodes');
    assert.deepEqual(
      [reset.observation.turn, reset.observation.content, reset.observation.done],
      [0, TASK.query, false],
    );
    assert.equal(reset.observation.messages[0].role, 'system');
    assert.deepEqual(reset.observation.messages[1], { role: 'user', content: TASK.query });
    assert.ok(observation(reset.observation), JSON.stringify(observation.errors));
    const summary = await json(await fetch(`${url}/v1/episodes/${id}`));
    assert.equal(summary.seed, 3);

    const first = await json(
      await post(`${url}/openenv/step`, { episode_id: id, action: { text: EXPLORE }, timeout_s: 30, request_id: 'r1' }),
    );
    assert.deepEqual(
      [first.reward, first.done, first.observation.turn, first.observation.episode_id],
      [null, false, 1, id],
    );
    assert.match(first.observation.content, /^<tools>/);
    assert.ok(observation(first.observation), JSON.stringify(observation.errors));
    // The episode may be named in the query instead (what routes it under serve --workers).
    await json(await post(`${url}/openenv/step?episode_id=${id}`, { action: { text: EXECUTE } }));
    const middle = await json(await fetch(`${url}/openenv/state?episode_id=${id}`));
    assert.deepEqual(middle, { episode_id: id, step_count: 2, done: false, task: TASK });
    assert.ok(state(middle), JSON.stringify(state.errors));
    await json(await post(`${url}/openenv/step`, { episode_id: id, action: { text: NEXT } }));

    const last = await json(await post(`${url}/openenv/step`, { episode_id: id, action: { text: ANSWER } }));
    const rewards = await json(await fetch(`${url}/v1/episodes/${id}/rewards`));
    assert.equal(last.done, true);
    assert.equal(last.reward, rewards.r_traj);
    assert.equal(last.reward, 0.1 + 0.4 + 1.5);
    assert.deepEqual(last.observation, {
      episode_id: id,
      turn: 4,
      content: '',
      done: true,
      finish: 'answer',
      answer: 'Rex was added to the store and read back.',
      rewards: { r_step: rewards.r_step, r_phase: rewards.r_phase, r_traj: rewards.r_traj, r_ans: rewards.r_ans },
    });
    assert.ok(observation(last.observation), JSON.stringify(observation.errors));
    assert.deepEqual(await json(await fetch(`${url}/openenv/state?episode_id=${id}`)), {
      episode_id: id,
      step_count: 4,
      done: true,
      task: TASK,
    });
    assert.match(
      String(
        (await expectProblem(await post(`${url}/openenv/step`, { episode_id: id, action: { text: ANSWER } }), 409))
          .detail,
      ),
      /answered on turn 4/,
    );
  });

  it('an unscorable answer is flagged: reward null, null rewards and why', async () => {
    const reset = await json(await post(`${url}/openenv/reset`, { task: OTHER_TASK }));
    const last = await json(
      await post(`${url}/openenv/step`, {
        episode_id: reset.observation.episode_id,
        action: { text: '<think>t</think><answer>none</answer>' },
      }),
    );
    assert.equal(last.done, true);
    assert.equal(last.reward, null);
    assert.equal(last.observation.rewards.r_traj, null);
    assert.match(last.observation.rewards.flagged, /no way to score the answer/);
  });

  it('refuses what it cannot validate with 422, unknown episodes with 404', async () => {
    const id = (await json(await post(`${url}/openenv/reset`, { task: TASK }))).observation.episode_id as string;
    const bad = await expectProblem(
      await post(`${url}/openenv/step`, { episode_id: id, action: { text: 3, code: 'x' } }),
      422,
    );
    assert.deepEqual((bad.errors as Json[]).map((e) => e.path).sort(), ['/action/code', '/action/text']);
    await expectProblem(await post(`${url}/openenv/step`, { episode_id: id, action: 'hello' }), 422);
    const missing = await expectProblem(await post(`${url}/openenv/step`, { action: { text: EXPLORE } }), 422);
    assert.deepEqual(
      (missing.errors as Json[]).map((e) => e.path),
      ['/episode_id'],
    );
    // The body and the query naming two episodes: the one the server lacks is a 404, two live ones conflict.
    await expectProblem(
      await post(`${url}/openenv/step?episode_id=other`, { episode_id: id, action: { text: EXPLORE } }),
      404,
    );
    const other = (await json(await post(`${url}/openenv/reset`, { task: TASK }))).observation.episode_id as string;
    await expectProblem(
      await post(`${url}/openenv/step?episode_id=${other}`, { episode_id: id, action: { text: EXPLORE } }),
      409,
    );
    await expectProblem(await post(`${url}/openenv/step`, { episode_id: 'nope', action: { text: EXPLORE } }), 404);
    await expectProblem(await fetch(`${url}/openenv/state?episode_id=nope`), 404);
    await expectProblem(await fetch(`${url}/openenv/state`), 422);
    // No --openenv-tasks: a reset without a task plays one synthesized from the served library and its graph.
    const drawn = await json(await post(`${url}/openenv/reset`, { seed: 5 }));
    const task = (await json(await fetch(`${url}/openenv/state?episode_id=${drawn.observation.episode_id}`)))
      .task as Json;
    assert.equal(drawn.observation.content, task.query);
    assert.ok(
      typeof task.id === 'string' && (task.answer !== undefined || task.reference_tools.length > 0),
      JSON.stringify(task),
    );
    const again = await json(await post(`${url}/openenv/reset`, { seed: 5 }));
    assert.equal(again.observation.content, task.query, 'the same seed, the same default task');
    const wrong = await expectProblem(
      await post(`${url}/openenv/reset`, { task: TASK, protocol: 'dfs', bogus: 1 }),
      422,
    );
    assert.deepEqual((wrong.errors as Json[]).map((e) => e.path).sort(), ['/bogus', '/protocol']);
    await expectProblem(await post(`${url}/openenv/reset`, { task: TASK, episode_id: 7 }), 422);
    // The bad action ran nothing: the episode took no turn.
    assert.equal((await json(await fetch(`${url}/openenv/state?episode_id=${id}`))).step_count, 0);
  });
});

it('a server with neither --openenv-tasks nor a graph to synthesize them from: a reset names its task', async (t) => {
  const tools = [...petstoreTools];
  const bare = await startEpisodeServer({ tools, openenvTasks: synthesizedTasks(await episodeLibrary(tools)) });
  t.after(() => bare.close());
  const untasked = await expectProblem(await post(`${bare.url}/openenv/reset`, {}), 422);
  assert.deepEqual(
    (untasked.errors as Json[]).map((e) => e.path),
    ['/task'],
  );
  assert.match(JSON.stringify(untasked.errors), /toolenv graph build/);
});

describe('OpenEnv over WebSocket', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    await withGraph();
    server = await startEpisodeServer({ openenvTasks: [TASK, OTHER_TASK], maxEpisodes: 3 });
    url = server.url;
  });
  after(() => server.close());

  it('one session plays a whole episode: reset, steps, the reward, the state; close ends the episode', async () => {
    const session = await connect(url);
    assert.deepEqual(await session.ask({ type: 'state' }), {
      type: 'state',
      data: { episode_id: null, step_count: 0, done: false },
    });
    const reset = await session.ask({ type: 'reset', data: { seed: 0 } });
    assert.equal(reset.type, 'observation');
    assert.deepEqual([reset.data.reward, reset.data.done, reset.data.observation.content], [null, false, TASK.query]);
    const id = reset.data.observation.episode_id as string;
    for (const text of [EXPLORE, EXECUTE, NEXT]) {
      const step = await session.ask({ type: 'step', data: { text } });
      assert.deepEqual([step.type, step.data.reward, step.data.done], ['observation', null, false]);
    }
    const last = await session.ask({ type: 'step', data: { text: ANSWER } });
    const rewards = await json(await fetch(`${url}/v1/episodes/${id}/rewards`));
    assert.equal(last.data.done, true);
    assert.equal(last.data.reward, rewards.r_traj);
    assert.equal(last.data.observation.rewards.r_traj, rewards.r_traj);
    assert.deepEqual(await session.ask({ type: 'state' }), {
      type: 'state',
      data: { episode_id: id, step_count: 4, done: true, task: TASK },
    });
    const done = await session.ask({ type: 'step', data: { text: ANSWER } });
    assert.equal(done.data.code, 'EXECUTION_ERROR');
    assert.match(done.data.message, /answered on turn 4/);

    session.ws.send(JSON.stringify({ type: 'close' }));
    assert.equal(await session.closed, 1000);
    assert.equal(await episodeStatus(url, id), 404);
  });

  it('errors leave the session open; a reset replaces its episode; a dropped connection ends it', async () => {
    const session = await connect(url);
    const error = async (message: unknown, code: string) => {
      const reply = await session.ask(message);
      assert.equal(reply.type, 'error');
      assert.equal(reply.data.code, code, JSON.stringify(reply));
      assert.equal(typeof reply.data.message, 'string');
      return reply.data as Json;
    };
    await error('{"type": "reset",', 'INVALID_JSON');
    await error('[1]', 'VALIDATION_ERROR');
    assert.match((await error({ type: 'jump' }, 'UNKNOWN_TYPE')).message, /Unknown message type: "jump"/);
    await error({ data: {} }, 'UNKNOWN_TYPE');
    await error({ type: 'step', data: { text: EXPLORE } }, 'EXECUTION_ERROR');
    await error({ type: 'state', data: {} }, 'VALIDATION_ERROR');

    // Default tasks: the seed picks one, resets without a seed take them in turn.
    const first = await session.ask({ type: 'reset', data: { seed: 1 } });
    assert.equal(first.data.observation.content, OTHER_TASK.query);
    const firstId = first.data.observation.episode_id as string;
    const invalid = await error({ type: 'reset', data: { max_turns: 0 } }, 'VALIDATION_ERROR');
    assert.deepEqual(
      invalid.errors.map((e: Json) => e.path),
      ['/max_turns'],
    );
    assert.equal(await episodeStatus(url, firstId), 200, 'an invalid reset keeps the episode');
    const bad = await error({ type: 'step', data: { text: EXPLORE, extra: 1 } }, 'VALIDATION_ERROR');
    assert.deepEqual(
      bad.errors.map((e: Json) => e.path),
      ['/data/extra'],
    );
    await error({ type: 'step' }, 'VALIDATION_ERROR');

    const second = await session.ask({ type: 'reset', data: {} });
    const third = await session.ask({ type: 'reset' });
    assert.deepEqual([second.data.observation.content, third.data.observation.content], [TASK.query, OTHER_TASK.query]);
    assert.equal(await episodeStatus(url, firstId), 404, 'a reset deletes the episode it replaces');
    assert.equal(await episodeStatus(url, second.data.observation.episode_id), 404);
    const step = await session.ask({ type: 'step', data: { text: EXPLORE } });
    assert.equal(step.data.observation.turn, 1);
    // Messages sent back to back are answered in order, each after the one before: this step meets the new episode.
    const [again, stepped] = await Promise.all([
      session.ask({ type: 'reset' }),
      session.ask({ type: 'step', data: { text: EXPLORE } }),
    ]);
    const id = again!.data.observation.episode_id as string;
    assert.deepEqual([stepped!.data.observation.episode_id, stepped!.data.observation.turn], [id, 1]);
    assert.equal(await episodeStatus(url, third.data.observation.episode_id), 404);

    session.ws.terminate();
    await session.closed;
    // The server sees the connection go a moment later.
    for (let i = 0; i < 50 && (await episodeStatus(url, id)) === 200; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await episodeStatus(url, id), 404);
  });

  it('answers CAPACITY_REACHED and closes when the live-episode cap is reached; HTTP says 429', async () => {
    const held = await Promise.all([connect(url), connect(url), connect(url)]);
    for (const session of held) assert.equal((await session.ask({ type: 'reset' })).type, 'observation');
    const over = await connect(url);
    const refused = await over.ask({ type: 'reset' });
    assert.equal(refused.data.code, 'CAPACITY_REACHED');
    assert.match(refused.data.message, /3 episodes are live/);
    assert.equal(await over.closed, 1013);
    await expectProblem(await post(`${url}/openenv/reset`, {}), 429);
    for (const session of held) session.ws.close();
    await Promise.all(held.map((session) => session.closed));
  });

  it(
    'upgrades only GET /openenv/ws to WebSocket: ' + 'another upgrade is answered as the request would be without it',
    async () => {
      const h2c = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n';
      // Each connection ends with a request of its own that closes it: the upgraded ones stay open (keep-alive).
      const closing = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
      const answers = async (bytes: string) => (await rawSocket(url, bytes + closing)).split(/(?=HTTP\/1\.1 \d{3} )/);

      const [health, last] = await answers(`GET /healthz HTTP/1.1\r\nHost: localhost\r\n${h2c}\r\n`);
      assert.match(health!, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"status":"ok"/);
      assert.match(last!, /^HTTP\/1\.1 200 OK\r\n/);
      const body = JSON.stringify({ task: TASK });
      const [reset] = await answers(
        `POST /openenv/reset HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n${h2c}\r\n${body}`,
      );
      assert.match(reset!, /^HTTP\/1\.1 200 OK\r\n/, 'the body was read');
      const created = JSON.parse(reset!.slice(reset!.indexOf('\r\n\r\n'))) as Json;
      await json(await fetch(`${url}/v1/episodes/${created.observation.episode_id}`, { method: 'DELETE' }));
      const [notWebSocket] = await answers(`GET /openenv/ws HTTP/1.1\r\nHost: localhost\r\n${h2c}\r\n`);
      assert.match(notWebSocket!, /^HTTP\/1\.1 426 Upgrade Required\r\n/);
      assert.equal(await refusedHandshake(url, {}, '/openenv/elsewhere'), 404);
    },
  );
});

describe('OpenEnv with an API key', () => {
  let server: RunningServer;
  before(async () => {
    server = await startEpisodeServer({ apiKey: 'sekret', openenvTasks: [TASK] });
  });
  after(() => server.close());

  it('needs the key for the WebSocket handshake as for every route', async () => {
    assert.equal(await refusedHandshake(server.url), 401);
    assert.equal(await refusedHandshake(server.url, { authorization: 'Bearer wrong' }), 401);
    await expectProblem(await fetch(`${server.url}/openenv/health`), 401);
    const session = await connect(server.url, { authorization: 'Bearer sekret' });
    assert.equal((await session.ask({ type: 'reset' })).type, 'observation');
  });

  it('closing the server closes its sessions (1001) and does not wait for them', async () => {
    const session = await connect(server.url, { authorization: 'Bearer sekret' });
    await session.ask({ type: 'reset' });
    const started = performance.now();
    await server.close();
    assert.equal(await session.closed, 1001);
    assert.ok(performance.now() - started < 4000);
  });
});
