import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { schemasDir } from '../../src/paths.js';
import type { RunningServer } from '../../src/server/serve.js';
import { createAjv } from '../../src/library/ajv.js';
import { expectProblem } from '../server/helpers.js';
import { call, createEpisode, json, post, search, startEpisodeServer, step } from './fixture.js';

const ajv = createAjv();
ajv.addSchema(JSON.parse(readFileSync(join(schemasDir, 'trajectory.schema.json'), 'utf8')) as object);
const ID = 'https://toolenv.dev/schemas/trajectory.schema.json';
const validate = (def: string, value: unknown) => {
  const check = ajv.getSchema(`${ID}#/$defs/${def}`)!;
  assert.ok(check(value), `${def}: ${JSON.stringify(check.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
};

describe('episode routes', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await startEpisodeServer();
    url = server.url;
  });
  after(() => server.close());

  it('POST /v1/episodes answers 201 with the summary, a Location, the config and a reported seed', async () => {
    const response = await post(`${url}/v1/episodes`, {
      task: { id: 't1', query: 'add a pet', reference_tools: ['petstore_test__addPet'] },
      max_steps: 3,
      error_rate: 0.25,
    });
    const summary = await json(response, 201);
    assert.equal(response.headers.get('location'), `/v1/episodes/${summary.id}`);
    assert.equal(summary.max_steps, 3);
    assert.equal(summary.error_rate, 0.25);
    assert.deepEqual(summary.task, { id: 't1', query: 'add a pet', reference_tools: ['petstore_test__addPet'] });
    assert.ok(Number.isInteger(summary.seed));
    assert.equal(summary.done, false);
    assert.deepEqual(summary.working_set, []);
    validate('CreatedEpisode', summary);
    const other = await createEpisode(url);
    assert.equal(other.max_steps, 50);
    assert.equal(other.error_rate, 0);
    assert.notEqual(other.seed, summary.seed);
    assert.notEqual(other.id, summary.id);
    // An empty body is an empty config.
    assert.equal((await fetch(`${url}/v1/episodes`, { method: 'POST' })).status, 201);
  });

  it('a bad config is a 400 problem listing every wrong member', async () => {
    const problem = await expectProblem(
      await post(`${url}/v1/episodes`, {
        seed: 1.5,
        error_rate: 2,
        max_steps: 0,
        tools: ['nope'],
        task: { query: 3 },
        extra: true,
      }),
      400,
    );
    const paths = (problem.errors as { path: string }[]).map((e) => e.path).sort();
    assert.deepEqual(paths, ['/error_rate', '/extra', '/max_steps', '/seed', '/task/id', '/task/query', '/tools/0']);
    assert.equal(problem.title, 'Invalid episode request');
    await expectProblem(await post(`${url}/v1/episodes`, [1]), 400);
    await expectProblem(await fetch(`${url}/v1/episodes`, { method: 'POST', body: '{' }), 400);
  });

  it(
    'a step runs search and call actions in parallel, ' + 'observations in action order; GET is the trajectory',
    async () => {
      const { id } = await createEpisode(url, { seed: 7 });
      const result = await step(url, id, [
        search('find a pet by its id', 2),
        call('petstore_test__addPet', { name: 'Rex' }, 'c1'),
        call('weather_forecast', { city: 'Oslo' }),
        call('petstore_test__getPetById', {}),
      ]);
      validate('StepResult', result);
      assert.equal(result.step, 1);
      assert.equal(result.done, false);
      const [found, added, weather, invalid] = result.observations;
      assert.equal(found.type, 'search_tool');
      assert.equal(found.results.length, 2);
      assert.equal(found.results[0].id, 'petstore_test__getPetById');
      assert.equal(typeof found.results[0].description, 'string');
      assert.deepEqual(
        [added.type, added.tool, added.id, added.status, added.state],
        ['tool_call', 'petstore_test__addPet', 'c1', 201, 'created'],
      );
      assert.equal(weather.status, 200);
      assert.equal(invalid.status, 400);
      assert.equal(invalid.source, 'rule');

      const trajectory = await json(await fetch(`${url}/v1/episodes/${id}`));
      validate('Trajectory', trajectory);
      assert.deepEqual(
        trajectory.working_set,
        found.results.map((hit: { id: string }) => hit.id),
      );
      assert.deepEqual(trajectory.counts, {
        turns: 0,
        steps: 1,
        actions: 4,
        searches: 1,
        calls: 3,
        failed_calls: 1,
        injected_errors: 0,
      });
      assert.equal(trajectory.steps.length, 1);
      assert.deepEqual(trajectory.steps[0].observations, result.observations);
      assert.equal(trajectory.steps[0].actions[0].k, 2);
      assert.deepEqual(trajectory.steps[0].actions[2], {
        type: 'tool_call',
        tool: 'weather_forecast',
        arguments: { city: 'Oslo' },
      });
    },
  );

  it('?format=jsonl is the summary line, then one line per step, each valid against the schema', async () => {
    const { id } = await createEpisode(url);
    await step(url, id, [search('weather')]);
    await step(url, id, [call('weather_forecast', { city: 'Rome' }), call('petstore_test__listPets', {})]);
    const response = await fetch(`${url}/v1/episodes/${id}?format=jsonl`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^application\/x-ndjson/);
    const text = await response.text();
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 3);
    for (const line of lines) validate('TrajectoryLine', line);
    assert.equal(lines[0].id, id);
    assert.equal(lines[0].steps, undefined);
    assert.deepEqual(
      lines.slice(1).map((l) => l.step),
      [1, 2],
    );
    await expectProblem(await fetch(`${url}/v1/episodes/${id}?format=xml`), 400);
  });

  it('malformed actions are a 400 with errors naming each one; nothing is recorded', async () => {
    const { id } = await createEpisode(url);
    const problem = await expectProblem(
      await post(`${url}/v1/episodes/${id}/step`, {
        actions: [
          { type: 'search_tool' },
          { type: 'tool_call', tool: 'x', arguments: [] },
          { type: 'fly' },
          { type: 'search_tool', query: 'q', k: 0 },
          'x',
          { type: 'tool_call', tool: 'x', controls: { code: 99 } },
        ],
      }),
      400,
    );
    assert.deepEqual(
      (problem.errors as { path: string }[]).map((e) => e.path),
      [
        '/actions/0/query',
        '/actions/1/arguments',
        '/actions/2/type',
        '/actions/3/k',
        '/actions/4',
        '/actions/5/controls/code',
      ],
    );
    await expectProblem(await post(`${url}/v1/episodes/${id}/step`, { actions: [] }), 400);
    await expectProblem(await post(`${url}/v1/episodes/${id}/step`, {}), 400);
    await expectProblem(await post(`${url}/v1/episodes/${id}/step`, { actions: [search('a')], more: 1 }), 400);
    await expectProblem(
      await post(`${url}/v1/episodes/${id}/step`, { actions: Array.from({ length: 65 }, () => search('a')) }),
      400,
    );
    const trajectory = await json(await fetch(`${url}/v1/episodes/${id}`));
    assert.equal(trajectory.steps.length, 0);
    assert.equal(trajectory.counts.steps, 0);
  });

  it('unknown episodes are 404 on every route', async () => {
    const problem = await expectProblem(await post(`${url}/v1/episodes/nope/step`, { actions: [search('a')] }), 404);
    assert.equal(problem.title, 'Unknown episode');
    await expectProblem(await fetch(`${url}/v1/episodes/nope`), 404);
    await expectProblem(await fetch(`${url}/v1/episodes/nope`, { method: 'DELETE' }), 404);
    await expectProblem(
      await post(
        `${url}/v1/tools/weather_forecast/call`,
        { arguments: { city: 'x' } },
        { 'x-toolenv-episode': 'nope' },
      ),
      404,
    );
  });

  it('the step that reaches max_steps is done; later steps and calls are 409', async () => {
    const { id } = await createEpisode(url, { max_steps: 2 });
    assert.equal((await step(url, id, [search('pet')])).done, false);
    const last = await step(url, id, [search('pet')]);
    assert.deepEqual([last.step, last.done], [2, true]);
    const problem = await expectProblem(await post(`${url}/v1/episodes/${id}/step`, { actions: [search('pet')] }), 409);
    assert.equal(problem.title, 'Episode done');
    await expectProblem(
      await post(`${url}/v1/tools/weather_forecast/call`, { arguments: { city: 'x' } }, { 'x-toolenv-episode': id }),
      409,
    );
    const trajectory = await json(await fetch(`${url}/v1/episodes/${id}`));
    assert.equal(trajectory.done, true);
    assert.equal(trajectory.steps.length, 2);
  });

  it('concurrent steps of one episode are numbered in arrival order, never past max_steps', async () => {
    const { id } = await createEpisode(url, { max_steps: 3 });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(`${url}/v1/episodes/${id}/step`, { actions: [call('weather_forecast', { city: 'Oslo' })] }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 409, 409]);
    const steps = await Promise.all(
      answers.filter((a) => a.status === 200).map((a) => a.json() as Promise<{ step: number }>),
    );
    assert.deepEqual(steps.map((s) => s.step).sort(), [1, 2, 3]);
  });

  it('an episode restricted to tools searches only them and refuses other calls with 403', async () => {
    const tools = ['petstore_test__deletePet', 'weather_forecast'];
    const { id, tools: listed } = await createEpisode(url, { tools: [...tools, 'weather_forecast'] });
    assert.deepEqual(listed, tools);
    const result = await step(url, id, [search('find a pet by its id', 3), search('weather forecast')]);
    assert.deepEqual(
      result.observations[0].results.map((hit: { id: string }) => hit.id),
      ['petstore_test__deletePet'],
    );
    assert.equal(result.observations[1].results[0].id, 'weather_forecast');
    const problem = await expectProblem(
      await post(`${url}/v1/episodes/${id}/step`, {
        actions: [call('weather_forecast', { city: 'x' }), call('petstore_test__addPet', { name: 'x' })],
      }),
      403,
    );
    assert.deepEqual(problem.errors, [
      { path: '/actions/1/tool', message: '"petstore_test__addPet" is not among the episode\'s tools' },
    ]);
    await expectProblem(
      await post(
        `${url}/v1/tools/petstore_test__addPet/call`,
        { arguments: { name: 'x' } },
        { 'x-toolenv-episode': id },
      ),
      403,
    );
    await expectProblem(
      await fetch(`${url}/apis/petstore.test/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolenv-episode': id },
        body: '{"name":"x"}',
      }),
      403,
    );
    assert.equal((await step(url, id, [call('weather_forecast', { city: 'x' })])).step, 2);
  });

  it('DELETE answers the final summary; the episode is gone after', async () => {
    const { id } = await createEpisode(url);
    await step(url, id, [search('email')]);
    const summary = await json(await fetch(`${url}/v1/episodes/${id}`, { method: 'DELETE' }));
    validate('EpisodeSummary', summary);
    assert.equal(summary.id, id);
    assert.equal(summary.done, true);
    assert.equal(summary.counts.steps, 1);
    await expectProblem(await fetch(`${url}/v1/episodes/${id}`), 404);
    await expectProblem(await fetch(`${url}/v1/episodes/${id}`, { method: 'DELETE' }), 404);
  });
});

describe('episode limits', () => {
  it('live episodes are capped: one more is a 429 until one ends', async (t) => {
    const server = await startEpisodeServer({ maxEpisodes: 2 });
    t.after(() => server.close());
    const first = await createEpisode(server.url);
    await createEpisode(server.url);
    const refused = await post(`${server.url}/v1/episodes`, {});
    assert.equal(refused.headers.get('retry-after'), '1');
    const problem = await expectProblem(refused, 429);
    assert.match(String(problem.detail), /2 episodes are live/);
    assert.equal(server.episodes.size, 2);
    await fetch(`${server.url}/v1/episodes/${first.id}`, { method: 'DELETE' });
    await createEpisode(server.url);
  });

  it('idle episodes expire: 404 after the TTL, and they stop counting against the cap', async (t) => {
    const server = await startEpisodeServer({ maxEpisodes: 1, episodeTtlMs: 5 });
    t.after(() => server.close());
    const { id } = await createEpisode(server.url);
    await sleep(30);
    await expectProblem(await post(`${server.url}/v1/episodes/${id}/step`, { actions: [search('pet')] }), 404);
    await createEpisode(server.url);
    await sleep(30);
    await createEpisode(server.url);
  });

  it('serve documents every episode route in its OpenAPI document', async (t) => {
    const server = await startEpisodeServer();
    t.after(() => server.close());
    const doc = await json(await fetch(`${server.url}/openapi.json`));
    assert.deepEqual(Object.keys(doc.paths['/v1/episodes']), ['get', 'post']);
    assert.deepEqual(Object.keys(doc.paths['/v1/episodes/{id}']).sort(), ['delete', 'get']);
    assert.deepEqual(Object.keys(doc.paths['/v1/episodes/{id}/step']), ['post']);
    assert.ok(doc.components.schemas.Trajectory);
  });
});
