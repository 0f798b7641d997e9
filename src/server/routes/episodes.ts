import { Hono } from 'hono';
import { unknownEpisode } from '../../episodes/errors.js';
import type { EpisodeStore } from '../../episodes/store.js';
import { stepJson } from '../../episodes/step-json.js';
import { createdEpisodeJson } from '../../episodes/created-json.js';
import { readJsonBody } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';
import { json, PROBLEMS, problemDoc, ref, type Operations } from '../openapi-parts.js';

const JSONL_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;
/** What `c.json` sends: a plain record, which @hono/node-server writes without building a Headers object. */
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The episode API (issue #6): `POST /v1/episodes` starts one, `POST /v1/episodes/{id}/step` runs a step of parallel
 * actions, `GET /v1/episodes/{id}` is its trajectory (`?format=jsonl`: the summary line, then one line per step, then
 * one per text turn), `DELETE /v1/episodes/{id}` ends it and answers its final summary. The store's refusals travel as
 * EpisodeError, answered by the app's error handler (episodeProblem).
 */
export function episodeRoutes(episodes: EpisodeStore): Hono {
  const app = new Hono();

  app.post('/v1/episodes', async (c) => {
    const created = episodes.create(await readJsonBody(c));
    return c.body(createdEpisodeJson(created), 201, { ...JSON_HEADERS, location: `/v1/episodes/${created.id}` });
  });

  // Read-only, for the studio and dashboards: the episodes this process holds, newest first.
  app.get('/v1/episodes', (c) => {
    const text = c.req.query('limit') ?? String(DEFAULT_LIST_LIMIT);
    const limit = Number(text);
    if (!/^\d+$/.test(text) || limit < 1 || limit > MAX_LIST_LIMIT)
      throw httpProblem(400, `limit must be an integer between 1 and ${MAX_LIST_LIMIT}, got ${JSON.stringify(text)}`, {
        title: 'Invalid query parameter',
      });
    return c.json(episodes.list(limit));
  });

  app.post('/v1/episodes/:id/step', async (c) =>
    c.body(stepJson(await episodes.step(c.req.param('id'), await readJsonBody(c))), 200, JSON_HEADERS),
  );

  app.post('/v1/episodes/:id/turns', async (c) =>
    c.json(await episodes.turn(c.req.param('id'), await readJsonBody(c))),
  );

  app.get('/v1/episodes/:id', (c) => {
    const format = c.req.query('format') ?? 'json';
    if (format !== 'json' && format !== 'jsonl') {
      throw httpProblem(400, `format must be "json" or "jsonl", got ${JSON.stringify(format)}`, {
        title: 'Invalid query parameter',
      });
    }
    const trajectory = episodes.get(c.req.param('id'));
    if (!trajectory) throw unknownEpisode(c.req.param('id'), episodes.ttlMs);
    if (format === 'json') return c.json(trajectory);
    const { steps, turns, ...summary } = trajectory;
    const lines = [summary, ...steps, ...turns].map((line) => `${JSON.stringify(line)}\n`).join('');
    return c.body(lines, 200, { 'content-type': JSONL_CONTENT_TYPE });
  });

  app.delete('/v1/episodes/:id', (c) => c.json(episodes.end(c.req.param('id'))));

  return app;
}

/** The operations of episodeRoutes. */
export const episodeOperations: Operations = {
  '/v1/episodes': {
    get: {
      operationId: 'listEpisodes',
      tags: ['Episodes'],
      summary: 'The episodes this server process holds, live and done (until deleted or expired), newest first',
      description: 'Under `serve --workers N`, the episodes of the worker that answers.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          description: 'Most episodes answered.',
          schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        },
      ],
      responses: {
        '200': json('Their summaries and how many are held.', {
          type: 'object',
          required: ['episodes', 'total'],
          properties: { episodes: { type: 'array', items: { type: 'object' } }, total: { type: 'integer' } },
        }),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
      },
    },
    post: {
      operationId: 'createEpisode',
      tags: ['Episodes'],
      summary: 'Start an episode: its own seed, injected-error stream, world state and trajectory',
      description:
        "Without a seed one is derived from the server's and reported back. `tools` restricts search and calls to " +
        'those ids. `protocol`, `k`, `max_calls_per_turn`, `max_turns`, `max_observation_chars` and `system_prompt` ' +
        "shape its text turns, `reward` overrides Table 7's coefficients. The answer carries the first messages a " +
        "trainer feeds the model: the protocol's system prompt and the task's query; a `chat` episode also its " +
        '`functions` (OpenAI `tools`). Idle episodes expire (`toolenv serve --episode-ttl`); live ones are capped ' +
        '(`--max-episodes`, 429 when full).',
      requestBody: { required: false, content: { 'application/json': { schema: ref('EpisodeConfig') } } },
      responses: {
        '201': {
          ...json('The episode and its first messages.', ref('CreatedEpisode')),
          headers: { Location: { description: "The episode's URL.", schema: { type: 'string' } } },
        },
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownTools' },
        '429': { $ref: '#/components/responses/TooManyEpisodes' },
      },
    },
  },
  '/v1/episodes/{id}/step': {
    post: {
      operationId: 'stepEpisode',
      tags: ['Episodes'],
      summary: "Run one step: its actions concurrently (ParaAct's parallel layer), observations in action order",
      description:
        'Steps of one episode run one at a time. Injected errors are drawn in action order; world state is applied ' +
        'in action order, so a read does not see a write of the same step. The step that reaches `max_steps` answers ' +
        '`done: true`; later ones are 409.',
      parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
      requestBody: { required: true, content: { 'application/json': { schema: ref('StepRequest') } } },
      responses: {
        '200': json('The observations.', ref('StepResult')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '403': problemDoc("A tool_call names a tool outside the episode's `tools`; `errors` lists them."),
        '404': { $ref: '#/components/responses/UnknownEpisode' },
        '409': problemDoc(
          'The episode is done, or it speaks text turns (`/turns`): an episode takes turns or JSON steps, never both.',
        ),
      },
    },
  },
  '/v1/episodes/{id}/turns': {
    post: {
      operationId: 'turnEpisode',
      tags: ['Episodes'],
      summary:
        'Run one turn: the assistant message is read and checked ' +
        "by the episode's protocol, its actions run as one step",
      description:
        "The server speaks the episode's protocol (`paraact`, `react` or `parallel`): it parses the message " +
        '(`<think>`, `<plan>`, `<search_tool>`, `<tool_call>`, `<answer>`), checks it against what the run has seen, ' +
        'runs its searches or the current DAG layer (at most `max_calls_per_turn` calls, references bound) as one ' +
        'episode step, and answers the next user message. A rejected message runs nothing, counts as a turn and is ' +
        'answered with why. An accepted `<answer>`, the turn cap or the step limit ends the episode (`finish`); ' +
        'later turns are 409. Turns of one episode run one at a time. `"state": true` adds the run state as data. A ' +
        '`chat` episode takes native tool calls instead: OpenAI\'s assistant message (`{"message": {"role": ' +
        '"assistant", "tool_calls": […]}}`) or the model\'s raw output read by its `tool_parser` (`{"text": ' +
        '"<tool_call>…</tool_call>"}`). The calls of one message run together and are answered by one `tool` message ' +
        'each (`messages`), with the `functions` callable now; a message without tool calls is the final answer.',
      parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
      requestBody: { required: true, content: { 'application/json': { schema: ref('TurnRequest') } } },
      responses: {
        '200': json('The next user message and how the episode stands.', ref('TurnResult')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
        '409': problemDoc(
          'The episode is done, or it already took JSON steps or calls: ' +
            'an episode takes turns or JSON steps, never both; or a `message` turn to an episode whose protocol ' +
            'takes `text`.',
        ),
        '413': PROBLEMS['413'],
      },
    },
  },
  '/v1/episodes/{id}': {
    get: {
      operationId: 'getEpisode',
      tags: ['Episodes'],
      summary: 'The trajectory: summary, working set, counts, every step and every text turn',
      parameters: [
        { $ref: '#/components/parameters/EpisodeId' },
        {
          name: 'format',
          in: 'query',
          description:
            '`jsonl`: the summary on the first line, then one step per line ' +
            '(schemas/trajectory.schema.json#/$defs/TrajectoryLine).',
          schema: { type: 'string', enum: ['json', 'jsonl'], default: 'json' },
        },
      ],
      responses: {
        '200': {
          description: 'The trajectory.',
          content: {
            'application/json': { schema: ref('Trajectory') },
            'application/x-ndjson': { schema: { type: 'string' } },
          },
        },
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
      },
    },
    delete: {
      operationId: 'deleteEpisode',
      tags: ['Episodes'],
      summary: 'End an episode; answers its final summary',
      parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
      responses: {
        '200': json('The final summary.', ref('EpisodeSummary')),
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
      },
    },
  },
};
