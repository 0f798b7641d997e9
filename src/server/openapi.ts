import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { episodeComponentSchemas } from '../episodes/schema.js';
import { MAX_GROUP_SIZE } from '../episodes/limits.js';
import { schemasDir } from '../paths.js';
import { OPENENV_SCHEMAS } from './openenv/schema.js';
import { CONTROL_QUERY_PARAMS } from './prefer.js';
import { CONTROLS, EPISODE_HEADER_PARAM, json, PROBLEMS, problemDoc, ref, SIMULATED } from './openapi-parts.js';

const RUN_NAME = {
  name: 'name',
  in: 'path',
  required: true,
  description: "The run's path below --runs, URL-encoded (`train%2Frl`).",
  schema: { type: 'string' },
};

const REST_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const TRAJECTORY_SCHEMA_ID = 'https://toolenv.dev/schemas/trajectory.schema.json';
let rewardDefs: Record<string, unknown> | undefined;

/**
 * schemas/rewards.schema.json's definitions as component schemas, read once: its own refs (`#/$defs/X`) and its refs
 * into trajectory.schema.json (`…/trajectory.schema.json#/$defs/X`, which episodeComponentSchemas holds) both become
 * `#/components/schemas/X`.
 */
function rewardComponentSchemas(): Record<string, unknown> {
  rewardDefs ??= JSON.parse(
    JSON.stringify(
      (JSON.parse(readFileSync(join(schemasDir, 'rewards.schema.json'), 'utf8')) as { $defs: Record<string, unknown> })
        .$defs,
    )
      .replaceAll('"#/$defs/', '"#/components/schemas/')
      .replaceAll(`"${TRAJECTORY_SCHEMA_ID}#/$defs/`, '"#/components/schemas/'),
  ) as Record<string, unknown>;
  return rewardDefs;
}

/**
 * This server's own API as an OpenAPI 3.1 document, served at `/openapi.json` with `servers` set to the origin the
 * client reached. `auth` adds the bearer scheme that `--api-key` turns on (everything but /healthz); `served`, the
 * paths the app serves, drops the documented ones it does not mount.
 */
export function serverOpenApi(
  origin: string,
  { auth = false, maxBatch = 100, served }: { auth?: boolean; maxBatch?: number; served?: ReadonlySet<string> } = {},
): Record<string, unknown> {
  const studioPage = (operationId: string) => ({
    get: {
      operationId,
      tags: ['Studio'],
      summary: 'The studio: the library, episodes, runs and server metrics in the browser',
      description:
        'The page and its assets hold no data and are served without the key; the API calls it makes send the key the user enters (kept in sessionStorage).',
      ...(auth ? { security: [] } : {}),
      responses: { '200': { description: 'The HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  });
  const restOperation = (method: string) => ({
    operationId: `rest${method[0]!.toUpperCase()}${method.slice(1)}`,
    tags: ['REST surface'],
    summary: `${method.toUpperCase()} an operation of an API, in its own HTTP shape`,
    description:
      'Routed by method and path template among the operations of the API that the library holds; the arguments are rebuilt from path, ' +
      'query (typed by the parameter schema), headers, cookies and the body. `api_id` may contain slashes (`amazonaws.com/acm`): the ' +
      'longest known api_id prefix of the path wins, and `path` is the rest of it, slashes included. A path with no operation is 404, ' +
      "a path whose operations take other methods is 405 with `Allow`. The simulated API's errors (refused arguments, injected and forced " +
      "errors, an episode's deleted resources) come in the operation's declared error shape where it declares a body for the status, " +
      '`x-toolenv-problem` naming the problem they stand for; `Accept: application/problem+json` asks for the problem itself.',
    parameters: [
      { $ref: '#/components/parameters/ApiId' },
      {
        name: 'path',
        in: 'path',
        required: true,
        description: 'The operation path, as in the API document.',
        schema: { type: 'string' },
      },
      ...CONTROLS,
      EPISODE_HEADER_PARAM,
    ],
    ...(method === 'get' || method === 'delete'
      ? {}
      : {
          requestBody: {
            required: false,
            content: {
              'application/json': { schema: {} },
              'application/x-www-form-urlencoded': { schema: { type: 'object' } },
              'multipart/form-data': { schema: { type: 'object' } },
            },
          },
        }),
    responses: { default: SIMULATED, ...PROBLEMS },
  });

  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'ToolEnv',
      version: '0.1.0',
      summary: 'A tool-environment simulator for agent RL.',
      description:
        'Real tool interfaces from public OpenAPI documents, simulated: every call passes Rule → Cache → Response. Bodies are what the ' +
        'simulated API returns; ToolEnv metadata travels in `x-toolenv-*` headers; every error is `application/problem+json`, but for a ' +
        "simulated API's errors on its REST surface, which use the API's declared error shape.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: origin }],
    ...(auth ? { security: [{ bearer: [] }] } : {}),
    tags: [
      { name: 'Server' },
      { name: 'Tools' },
      { name: 'Retrieval' },
      { name: 'Graph' },
      { name: 'APIs' },
      { name: 'REST surface' },
      { name: 'Episodes' },
      { name: 'Rewards' },
      { name: 'MCP' },
      { name: 'OpenEnv' },
    ],
    paths: {
      '/healthz': {
        get: {
          operationId: 'health',
          tags: ['Server'],
          summary: 'Liveness, the number of tools served, and the synthesis seed',
          ...(auth ? { security: [] } : {}),
          responses: { '200': json('Up.', ref('Health')), '500': PROBLEMS['500'] },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['Server'],
          summary: 'Prometheus metrics: simulated calls, cache, injected errors, HTTP requests, process',
          responses: {
            '200': {
              description: 'Prometheus text exposition format 0.0.4.',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            '401': PROBLEMS['401'],
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          tags: ['Server'],
          summary: 'This document',
          responses: { '200': json('OpenAPI 3.1 document.', { type: 'object' }), '401': PROBLEMS['401'] },
        },
      },
      '/v1/tools': {
        get: {
          operationId: 'listTools',
          tags: ['Tools'],
          summary: 'A page of tool summaries: in library order, or best match first with q',
          parameters: [
            { name: 'category', in: 'query', description: 'Only tools of this category.', schema: { type: 'string' } },
            {
              name: 'q',
              in: 'query',
              description:
                'Case-insensitive substring of id, name or description; matches come best first (the name is the text, starts with it or holds it as words, then the id, then the description; shorter names first).',
              schema: { type: 'string' },
            },
            {
              name: 'limit',
              in: 'query',
              description: 'Page size.',
              schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
            },
            {
              name: 'cursor',
              in: 'query',
              description: 'The `next_cursor` of the previous page.',
              schema: { type: 'string' },
            },
          ],
          responses: { '200': json('A page.', ref('ToolPage')), '400': PROBLEMS['400'], '401': PROBLEMS['401'] },
        },
      },
      '/v1/tools/{id}': {
        get: {
          operationId: 'getTool',
          tags: ['Tools'],
          summary: 'The full tool record',
          parameters: [{ $ref: '#/components/parameters/ToolId' }],
          responses: { '200': json('The record.', ref('Tool')), '401': PROBLEMS['401'], '404': PROBLEMS['404'] },
        },
      },
      '/v1/tools/{id}/call': {
        post: {
          operationId: 'callTool',
          tags: ['Tools'],
          summary: 'Call a tool: the answer is the simulated tool’s own status and body',
          parameters: [{ $ref: '#/components/parameters/ToolId' }, ...CONTROLS, EPISODE_HEADER_PARAM],
          requestBody: { required: false, content: { 'application/json': { schema: ref('CallRequest') } } },
          responses: { default: SIMULATED, ...PROBLEMS },
        },
      },
      '/v1/calls': {
        post: {
          operationId: 'callBatch',
          tags: ['Tools'],
          summary: `Up to ${maxBatch} calls, run concurrently; results in request order`,
          description:
            'Prefer controls (header or query) apply to every call of the batch. With `x-toolenv-episode` the batch is one step of that ' +
            'episode (world state and its error stream apply); the answer then also carries `step` and `done`.',
          parameters: [...CONTROLS, EPISODE_HEADER_PARAM],
          requestBody: { required: true, content: { 'application/json': { schema: ref('BatchRequest') } } },
          responses: { '200': json('One result per call, in order.', ref('BatchResponse')), ...PROBLEMS },
        },
      },
      '/v1/search': {
        post: {
          operationId: 'searchTools',
          tags: ['Retrieval'],
          summary: 'Top-k tools for one query or many (ParaAct’s parallel search_tool actions)',
          description:
            'Send exactly one of `query` or `queries` (at most 64). The retrieval index loads on the first search.',
          requestBody: { required: true, content: { 'application/json': { schema: ref('SearchRequest') } } },
          responses: {
            '200': json('Results, best first; for `queries`, one entry per query in order.', ref('SearchResponse')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
          },
        },
      },
      '/v1/graph/{id}': {
        get: {
          operationId: 'getToolEdges',
          tags: ['Graph'],
          summary: 'A tool’s dependency edges: in (tools it depends on) and out (tools that depend on it)',
          parameters: [{ $ref: '#/components/parameters/ToolId' }],
          responses: {
            '200': json('The edges, hard first.', ref('ToolEdges')),
            '401': PROBLEMS['401'],
            '404': PROBLEMS['404'],
            '409': { $ref: '#/components/responses/GraphUnavailable' },
          },
        },
      },
      '/v1/graph/subgraph': {
        post: {
          operationId: 'getSubgraph',
          tags: ['Graph'],
          summary: 'The dependency edges induced by a set of tools',
          requestBody: { required: true, content: { 'application/json': { schema: ref('SubgraphRequest') } } },
          responses: {
            '200': json('The induced edges.', ref('Subgraph')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '409': { $ref: '#/components/responses/GraphUnavailable' },
          },
        },
      },
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
            "Without a seed one is derived from the server's and reported back. `tools` restricts search and calls to those ids. " +
            "`protocol`, `k`, `max_calls_per_turn`, `max_turns`, `max_observation_chars` and `system_prompt` shape its text turns, `reward` overrides Table 7's coefficients. " +
            "The answer carries the first messages a trainer feeds the model: the protocol's system prompt and the task's query; a `chat` episode also its `functions` (OpenAI `tools`). " +
            'Idle episodes expire (`toolenv serve --episode-ttl`); live ones are capped (`--max-episodes`, 429 when full).',
          requestBody: { required: false, content: { 'application/json': { schema: ref('EpisodeConfig') } } },
          responses: {
            '201': {
              ...json('The episode and its first messages.', ref('CreatedEpisode')),
              headers: { Location: { description: "The episode's URL.", schema: { type: 'string' } } },
            },
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
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
            'Steps of one episode run one at a time. Injected errors are drawn in action order; world state is applied in action order, ' +
            'so a read does not see a write of the same step. The step that reaches `max_steps` answers `done: true`; later ones are 409.',
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
            "Run one turn: the assistant message is read and checked by the episode's protocol, its actions run as one step",
          description:
            "The server speaks the episode's protocol (`paraact`, `react` or `parallel`): it parses the message (`<think>`, `<plan>`, " +
            '`<search_tool>`, `<tool_call>`, `<answer>`), checks it against what the run has seen, runs its searches or the current DAG layer ' +
            '(at most `max_calls_per_turn` calls, references bound) as one episode step, and answers the next user message. A rejected ' +
            'message runs nothing, counts as a turn and is answered with why. An accepted `<answer>`, the turn cap or the step limit ' +
            'ends the episode (`finish`); later turns are 409. Turns of one episode run one at a time. `"state": true` adds the run state as data. ' +
            'A `chat` episode takes native tool calls instead: OpenAI\'s assistant message (`{"message": {"role": "assistant", "tool_calls": […]}}`) ' +
            'or the model\'s raw output read by its `tool_parser` (`{"text": "<tool_call>…</tool_call>"}`). The calls of one message run together and ' +
            'are answered by one `tool` message each (`messages`), with the `functions` callable now; a message without tool calls is the final answer.',
          parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('TurnRequest') } } },
          responses: {
            '200': json('The next user message and how the episode stands.', ref('TurnResult')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownEpisode' },
            '409': problemDoc(
              'The episode is done, or it already took JSON steps or calls: an episode takes turns or JSON steps, never both.',
            ),
            '413': PROBLEMS['413'],
          },
        },
      },
      '/v1/episodes/{id}/rewards': {
        get: {
          operationId: 'getEpisodeRewards',
          tags: ['Rewards'],
          summary:
            "The episode's hierarchical rewards: R_step, R_phase, R_traj and R_ans, with what each was computed from",
          description:
            "Computed from the text turns the server recorded, live or finished. R_ans comes from the task's expected answer (by rule) or " +
            "the server's judge (`serve --judge`); a finished episode is judged at most once per judge, so it always scores the same. When " +
            'R_ans cannot be scored (no expected answer and no judge, or the judge failed) r_ans, gate, r_phase and r_traj are null and ' +
            "`flagged` says why. L2 and L3 are scored only when the library's dependency graph is built (`graph`).",
          parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
          responses: {
            '200': json('The rewards.', ref('Rewards')),
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownEpisode' },
          },
        },
        post: {
          operationId: 'scoreEpisodeRewards',
          tags: ['Rewards'],
          summary: "The episode's rewards, scored with the verdicts or the judge the body gives",
          description:
            '`verdicts` score R_ans as given (replays, tests); `judge` names a judge for this request (`openai:MODEL@URL`), or `false` calls none. An empty body is as GET.',
          parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
          requestBody: { required: false, content: { 'application/json': { schema: ref('RewardRequest') } } },
          responses: {
            '200': json('The rewards.', ref('Rewards')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownEpisode' },
            '413': PROBLEMS['413'],
          },
        },
      },
      '/v1/groups': {
        post: {
          operationId: 'createGroup',
          tags: ['Rewards'],
          summary: `A group of n (at most ${MAX_GROUP_SIZE}) episodes of one task, made with one seed, for group-relative advantages`,
          description:
            'Every member gets the same config and seed, so the same calls meet the same injected errors and the same synthesized answers. ' +
            'The members are ordinary episodes (`group` names the group); the group lives as long as any of them does.',
          requestBody: { required: true, content: { 'application/json': { schema: ref('GroupRequest') } } },
          responses: {
            '201': {
              ...json('The group, its members with their first messages.', ref('GroupSummary')),
              headers: { Location: { description: "The group's URL.", schema: { type: 'string' } } },
            },
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '413': PROBLEMS['413'],
            '429': { $ref: '#/components/responses/TooManyEpisodes' },
          },
        },
      },
      '/v1/groups/{id}': {
        get: {
          operationId: 'getGroup',
          tags: ['Rewards'],
          summary: "The group: its config and seed, its live members' summaries, and the members gone since",
          parameters: [{ $ref: '#/components/parameters/GroupId' }],
          responses: {
            '200': json('The group.', ref('GroupSummary')),
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownGroup' },
          },
        },
        delete: {
          operationId: 'deleteGroup',
          tags: ['Rewards'],
          summary: 'End a group and its episodes; answers its final summary',
          parameters: [{ $ref: '#/components/parameters/GroupId' }],
          responses: {
            '200': json('The final summary, every member done.', ref('GroupSummary')),
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownGroup' },
          },
        },
      },
      '/v1/groups/{id}/advantages': {
        get: {
          operationId: 'getGroupAdvantages',
          tags: ['Rewards'],
          summary: "Every member's rewards and group-relative advantages (Eq. 7)",
          description:
            '`decoupled` standardizes each reward component in the group, then weights them by the λ coefficients; `aggregated` ' +
            "standardizes their weighted sum (GRPO, the ablation). A flagged member gets null advantages and is left out of the group's " +
            'statistics.',
          parameters: [
            { $ref: '#/components/parameters/GroupId' },
            {
              name: 'mode',
              in: 'query',
              description: 'How the components are combined.',
              schema: { ...ref('AdvantageMode'), default: 'decoupled' },
            },
          ],
          responses: {
            '200': json('The members in order, each with its rewards and advantages.', ref('GroupAdvantages')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownGroup' },
            '409': problemDoc('A member is gone (deleted or expired), its rewards with it.'),
          },
        },
      },
      '/v1/advantages': {
        post: {
          operationId: 'computeAdvantages',
          tags: ['Rewards'],
          summary: "Group-relative advantages of groups a trainer keeps itself: the same math as a group's",
          description:
            "Each group is one task's rollouts, each rollout its three rewards (null for a flagged one). `lambda` overrides the advantage weights.",
          requestBody: { required: true, content: { 'application/json': { schema: ref('AdvantagesRequest') } } },
          responses: {
            '200': json('One advantage per rollout, in order.', ref('AdvantagesResult')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
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
                '`jsonl`: the summary on the first line, then one step per line (schemas/trajectory.schema.json#/$defs/TrajectoryLine).',
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
      '/mcp': {
        post: {
          operationId: 'mcpMessage',
          tags: ['MCP'],
          summary:
            'MCP over Streamable HTTP: a stateless 2026-07-28 request, or a JSON-RPC message of a session that an initialize opens with its episode',
          description:
            'The Model Context Protocol, Streamable HTTP transport (`Accept: application/json, text/event-stream`). **2026-07-28** (a request ' +
            'whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`, or whose `MCP-Protocol-Version` header names no ' +
            'handshake version): one request per POST, no session; `server/discover`, `tools/list` and `tools/call`, answered in JSON with ' +
            '`resultType`; the episode tool calls record into is named by `x-toolenv-episode` or `?episode=` on every request; listing ' +
            'parameters are read on every request; a rejection is a JSON-RPC error (400, or 404 for a method 2026-07-28 lacks). ' +
            '**2025-11-25 and earlier**: a request without `Mcp-Session-Id` must be an `initialize`: it opens a session, answered with its ' +
            '`Mcp-Session-Id`, and an episode the session records every tool call into (`x-toolenv-episode`; also named in the initialize ' +
            '`instructions`). With `?episode=ID` the session records into an existing episode instead, which it then neither opens nor ends. ' +
            'Query parameters are read from the initialize request only. Tools, in both: `search_tool {query, k?}` and ' +
            '`call_tool {tool, arguments}`, or with `tools=`, `category=` or `working_set` library tools listed as native MCP tools.',
          parameters: [
            {
              name: 'mcp-session-id',
              in: 'header',
              description: 'The session, on every request after initialize (2025-11-25 and earlier).',
              schema: { type: 'string' },
            },
            {
              name: 'mcp-protocol-version',
              in: 'header',
              description: 'The protocol version; on a 2026-07-28 request it repeats the `_meta` one.',
              schema: { type: 'string' },
            },
            {
              name: 'mcp-method',
              in: 'header',
              description: "A 2026-07-28 request's method, repeated.",
              schema: { type: 'string' },
            },
            {
              name: 'mcp-name',
              in: 'header',
              description: "A 2026-07-28 `tools/call`'s tool name, repeated (`=?base64?…?=` when not printable ASCII).",
              schema: { type: 'string' },
            },
            {
              name: 'x-toolenv-episode',
              in: 'header',
              description: 'The episode a 2026-07-28 request records into (or `?episode=`; both must agree).',
              schema: { type: 'string' },
            },
            {
              name: 'episode',
              in: 'query',
              description: 'Record into this existing episode.',
              schema: { type: 'string' },
            },
            { name: 'seed', in: 'query', description: "The new episode's seed.", schema: { type: 'integer' } },
            {
              name: 'error_rate',
              in: 'query',
              description: "The new episode's injected-error rate.",
              schema: { type: 'number', minimum: 0, maximum: 1 },
            },
            {
              name: 'max_steps',
              in: 'query',
              description: "The new episode's step budget (each tool call is one step).",
              schema: { type: 'integer', minimum: 1 },
            },
            {
              name: 'tools',
              in: 'query',
              description: 'List these library tools (comma-separated ids, at most 256) as native MCP tools.',
              schema: { type: 'string' },
            },
            {
              name: 'category',
              in: 'query',
              description: "List this category's tools as native MCP tools, 100 per page.",
              schema: { type: 'string' },
            },
            {
              name: 'working_set',
              in: 'query',
              description: "List `search_tool` and every tool the episode's searches surfaced, growing as it grows.",
              schema: { type: 'boolean' },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { description: 'A JSON-RPC 2.0 message or batch.' } } },
          },
          responses: {
            '200': {
              description:
                'The JSON-RPC answers: JSON, or for a `working_set` session a server-sent event stream (which also carries `tools/list_changed`).',
              headers: {
                'mcp-session-id': { description: 'The session.', schema: { type: 'string' } },
                'x-toolenv-episode': {
                  description: 'The episode the session, or the 2026-07-28 request, records into.',
                  schema: { type: 'string' },
                },
              },
              content: {
                'application/json': { schema: { description: 'A JSON-RPC 2.0 response or batch.' } },
                'text/event-stream': { schema: { type: 'string' } },
              },
            },
            '202': { description: 'Notifications and responses accepted.' },
            '400': {
              description:
                'A problem; for a 2026-07-28 request a JSON-RPC error: -32700 unparseable, -32600 not one request, -32602 a bad envelope, parameter or unknown tool, -32020 a routing header that disagrees with the body, -32022 an unsupported version.',
              content: {
                'application/problem+json': { schema: ref('Problem') },
                'application/json': { schema: { description: 'A JSON-RPC 2.0 error response.' } },
              },
            },
            '401': PROBLEMS['401'],
            '404': {
              description:
                'No such session (closed or expired: initialize again), or no such episode for `?episode=`; for a 2026-07-28 request, a JSON-RPC -32601 naming a method it lacks.',
              content: {
                'application/problem+json': { schema: ref('Problem') },
                'application/json': { schema: { description: 'A JSON-RPC 2.0 error response.' } },
              },
            },
            '406': {
              description: 'The Accept header lacks application/json or text/event-stream (a JSON-RPC error body).',
            },
            '413': PROBLEMS['413'],
            '429': problemDoc('The live-session cap (or the live-episode cap) is reached.'),
          },
        },
        delete: {
          operationId: 'mcpCloseSession',
          tags: ['MCP'],
          summary: 'Close an MCP session, ending the episode it opened',
          parameters: [
            {
              name: 'mcp-session-id',
              in: 'header',
              required: true,
              description: 'The session to close.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': { description: 'Closed.' },
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': problemDoc('No such session.'),
          },
        },
      },
      '/openenv/health': {
        get: {
          operationId: 'openEnvHealth',
          tags: ['OpenEnv'],
          summary: "OpenEnv's health check",
          responses: {
            '200': json('Up.', { type: 'object', required: ['status'], properties: { status: { const: 'healthy' } } }),
            '401': PROBLEMS['401'],
          },
        },
      },
      '/openenv/metadata': {
        get: {
          operationId: 'openEnvMetadata',
          tags: ['OpenEnv'],
          summary: "OpenEnv's environment metadata",
          responses: { '200': json('Name, description, version.', ref('OpenEnvMetadata')), '401': PROBLEMS['401'] },
        },
      },
      '/openenv/schema': {
        get: {
          operationId: 'openEnvSchema',
          tags: ['OpenEnv'],
          summary: 'JSON Schemas of the action a step takes, and of the observation and the state',
          responses: {
            '200': json('The schemas.', {
              type: 'object',
              required: ['action', 'observation', 'state'],
              properties: { action: { type: 'object' }, observation: { type: 'object' }, state: { type: 'object' } },
            }),
            '401': PROBLEMS['401'],
          },
        },
      },
      '/openenv/openapi.json': {
        get: {
          operationId: 'openEnvOpenApi',
          tags: ['OpenEnv'],
          summary: 'This document cut to the /openenv routes, their paths relative to `{origin}/openenv`',
          responses: { '200': json('OpenAPI 3.1 document.', { type: 'object' }), '401': PROBLEMS['401'] },
        },
      },
      '/openenv/reset': {
        post: {
          operationId: 'openEnvReset',
          tags: ['OpenEnv'],
          summary: 'Start an episode of a task, as POST /v1/episodes does; the observation carries its `episode_id`',
          description:
            '`task` is required unless the server has default tasks (`tasks[seed mod n]`, else in turn). `episode_id` is accepted and ' +
            'not honored: the server names episodes. The episode lives until its turns end it and it is deleted (DELETE /v1/episodes/{id}) ' +
            'or it expires.',
          requestBody: { required: false, content: { 'application/json': { schema: ref('OpenEnvResetRequest') } } },
          responses: {
            '200': json("The first observation: the system prompt and the task's query.", ref('OpenEnvResult')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '413': PROBLEMS['413'],
            '422': problemDoc('An invalid reset (with `errors`).'),
            '429': { $ref: '#/components/responses/TooManyEpisodes' },
          },
        },
      },
      '/openenv/step': {
        post: {
          operationId: 'openEnvStep',
          tags: ['OpenEnv'],
          summary:
            "One text turn of the episode `episode_id` names, as POST /v1/episodes/{id}/turns; the last one's reward is R_traj",
          description:
            'The episode is named in the body or by `?episode_id=` (under `serve --workers N` the query routes the request to the ' +
            'worker that holds it). `timeout_s` and `request_id` are accepted and ignored. The reward is null until the episode is done.',
          parameters: [
            {
              name: 'episode_id',
              in: 'query',
              description: 'The episode, when the body does not name it.',
              schema: { type: 'string' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('OpenEnvStepRequest') } } },
          responses: {
            '200': json('The next user message; once done, the rewards.', ref('OpenEnvResult')),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownEpisode' },
            '409': problemDoc('The episode is done, or it took JSON steps.'),
            '413': PROBLEMS['413'],
            '422': problemDoc(
              'An invalid step: no `episode_id`, or an action other than `{"text": string}` (with `errors`).',
            ),
          },
        },
      },
      '/openenv/state': {
        get: {
          operationId: 'openEnvState',
          tags: ['OpenEnv'],
          summary: "OpenEnv's state of an episode: turns taken, done, the task's query",
          parameters: [
            {
              name: 'episode_id',
              in: 'query',
              required: true,
              description: 'The episode POST /openenv/reset started.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': json('The state.', ref('OpenEnvState')),
            '401': PROBLEMS['401'],
            '404': { $ref: '#/components/responses/UnknownEpisode' },
            '422': problemDoc('No `episode_id`.'),
          },
        },
      },
      '/openenv/ws': {
        get: {
          operationId: 'openEnvSession',
          tags: ['OpenEnv'],
          summary: "OpenEnv's WebSocket session (what its EnvClient speaks): one connection, one episode at a time",
          description:
            'Text frames of JSON, one reply each: `{"type": "reset", "data": {…reset request}}` and `{"type": "step", "data": {"text"}}` ' +
            'answer `{"type": "observation", "data": OpenEnvResult}`, `{"type": "state"}` answers `{"type": "state", "data": OpenEnvState}`, ' +
            '`{"type": "close"}` closes (1000). Errors answer `{"type": "error", "data": {"message", "code"}}` (INVALID_JSON, UNKNOWN_TYPE, ' +
            'VALIDATION_ERROR, EXECUTION_ERROR) and leave the session open, but CAPACITY_REACHED (the live-episode cap), after which it ' +
            "closes (1013). A reset replaces the session's episode; closing ends it. Messages are at most the body limit.",
          responses: {
            '101': { description: 'Switching to the WebSocket session.' },
            '401': PROBLEMS['401'],
            '426': problemDoc('Not a WebSocket upgrade.'),
          },
        },
      },
      '/v1/library': {
        get: {
          operationId: 'libraryStats',
          tags: ['Tools'],
          summary:
            'What the library holds: tools, APIs, tools per category, response-schema and example coverage (`toolenv library stats`)',
          responses: {
            '200': json('The counts.', { type: 'object', required: ['tools', 'apis', 'categories'] }),
            '401': PROBLEMS['401'],
          },
        },
      },
      '/v1/runs': {
        get: {
          operationId: 'listRuns',
          tags: ['Runs'],
          summary: 'The eval and train run directories under `serve --runs DIR`, newest first',
          responses: {
            '200': json('The runs (empty, with `detail`, without --runs).', { type: 'object', required: ['runs'] }),
            '401': PROBLEMS['401'],
          },
        },
      },
      '/v1/runs/{name}': {
        get: {
          operationId: 'getRun',
          tags: ['Runs'],
          summary:
            "One run: an eval report, or a training run's per-step metrics (computed from its rollouts while it runs)",
          parameters: [RUN_NAME],
          responses: {
            '200': json('The run.', { type: 'object', required: ['name', 'kind'] }),
            '401': PROBLEMS['401'],
            '404': PROBLEMS['404'],
          },
        },
      },
      '/v1/runs/{name}/episodes': {
        get: {
          operationId: 'listRunEpisodes',
          tags: ['Runs'],
          summary: 'The episodes a run kept, with their reward totals',
          parameters: [RUN_NAME],
          responses: {
            '200': json('The episodes.', { type: 'object', required: ['episodes'] }),
            '401': PROBLEMS['401'],
            '404': PROBLEMS['404'],
          },
        },
      },
      '/v1/runs/{name}/episodes/{episode}': {
        get: {
          operationId: 'getRunEpisode',
          tags: ['Runs'],
          summary:
            "One saved episode: its trajectory and its rewards (a training run's scored again from the trajectory, `rescored`)",
          parameters: [RUN_NAME, { name: 'episode', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': json('The episode.', { type: 'object', required: ['trajectory', 'rewards', 'rescored'] }),
            '401': PROBLEMS['401'],
            '404': PROBLEMS['404'],
          },
        },
      },
      '/studio': studioPage('studio'),
      '/studio/': studioPage('studioSlash'),
      '/studio/assets/{file}': {
        get: {
          operationId: 'studioAsset',
          tags: ['Studio'],
          summary: "The studio's scripts and stylesheets (its own, and uPlot's from npm)",
          ...(auth ? { security: [] } : {}),
          parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'The file.' }, '404': PROBLEMS['404'] },
        },
      },
      '/apis': {
        get: {
          operationId: 'listApis',
          tags: ['APIs'],
          summary: 'Every API of the library',
          responses: { '200': json('The APIs.', ref('ApiList')), '401': PROBLEMS['401'] },
        },
      },
      '/apis/{api_id}/openapi.json': {
        get: {
          operationId: 'getApiDocument',
          tags: ['APIs'],
          summary: "An API's OpenAPI document, pointed at this server",
          description:
            '`servers` is rewritten to `{origin}/apis/{api_id}` and `paths` keeps only the operations the library holds.',
          parameters: [{ $ref: '#/components/parameters/ApiId' }],
          responses: {
            '200': json('The document.', { type: 'object' }),
            '400': PROBLEMS['400'],
            '401': PROBLEMS['401'],
            '404': PROBLEMS['404'],
          },
        },
      },
      '/apis/{api_id}/{path}': Object.fromEntries(REST_METHODS.map((method) => [method, restOperation(method)])),
    },
    components: {
      ...(auth
        ? {
            securitySchemes: {
              bearer: {
                type: 'http',
                scheme: 'bearer',
                description: 'The key given to `toolenv serve --api-key` (or TOOLENV_API_KEY).',
              },
            },
          }
        : {}),
      parameters: {
        ToolId: {
          name: 'id',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        },
        ApiId: {
          name: 'api_id',
          in: 'path',
          required: true,
          description: 'The API id; may contain slashes (`apideck.com/crm`).',
          schema: { type: 'string' },
        },
        Prefer: {
          name: 'Prefer',
          in: 'header',
          description:
            'Prism-style controls, comma-separated: `code=429` forces a status, `example=NAME` picks a named example, `dynamic=true` synthesizes a fresh body.',
          schema: { type: 'string' },
          example: 'code=429',
        },
        ControlCode: {
          name: CONTROL_QUERY_PARAMS.code,
          in: 'query',
          description: 'Same as `Prefer: code=…`; wins over the header.',
          schema: { type: 'integer', minimum: 200, maximum: 599 },
        },
        ControlExample: {
          name: CONTROL_QUERY_PARAMS.example,
          in: 'query',
          description: 'Same as `Prefer: example=…`.',
          schema: { type: 'string' },
        },
        ControlDynamic: {
          name: CONTROL_QUERY_PARAMS.dynamic,
          in: 'query',
          description: 'Same as `Prefer: dynamic=…`.',
          schema: { type: 'boolean' },
        },
        EpisodeId: {
          name: 'id',
          in: 'path',
          required: true,
          description: 'The episode id `POST /v1/episodes` answered.',
          schema: { type: 'string' },
        },
        GroupId: {
          name: 'id',
          in: 'path',
          required: true,
          description: 'The group id `POST /v1/groups` answered.',
          schema: { type: 'string' },
        },
        EpisodeHeader: {
          name: 'x-toolenv-episode',
          in: 'header',
          description:
            'Runs the call inside this episode: its injection stream and world state, recorded as a one-action step (404, 409, 403 as for a step).',
          schema: { type: 'string' },
        },
      },
      responses: {
        BadRequest: problemDoc(
          'Malformed JSON, JSON nested too deep, an invalid body or query parameter, or invalid arguments.',
        ),
        Unauthorized: {
          ...problemDoc('Missing or wrong API key.'),
          headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
        },
        NotFound: problemDoc('Unknown route, tool, API or operation.'),
        MethodNotAllowed: {
          ...problemDoc('The path exists but not with this method.'),
          headers: { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } },
        },
        PayloadTooLarge: problemDoc('The request body is larger than the server’s body limit.'),
        ServerError: problemDoc('An unexpected server error (logged).'),
        GraphUnavailable: problemDoc(
          'The dependency graph of this library has not been built, or was built by another version: `command` names the build (`toolenv graph build`).',
        ),
        UnknownEpisode: problemDoc('No such episode: it never existed, was deleted, or expired.'),
        UnknownGroup: problemDoc('No such group: it never existed, or all its episodes were deleted or expired.'),
        TooManyEpisodes: problemDoc(
          'The live-episode cap is reached, or the live episodes hold their byte budget (the detail says which).',
        ),
      },
      schemas: {
        ...episodeComponentSchemas(),
        ...rewardComponentSchemas(),
        Health: {
          type: 'object',
          required: ['status', 'tools', 'seed'],
          properties: {
            status: { const: 'ok' },
            tools: { type: 'integer', minimum: 0 },
            seed: {
              description: 'The synthesis seed (`serve --seed`): synthesized tasks hold for a server with theirs.',
              type: 'integer',
            },
          },
        },
        ToolSummary: {
          type: 'object',
          required: ['id', 'name', 'description', 'category'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
            category: { type: 'string' },
          },
        },
        ToolPage: {
          type: 'object',
          required: ['tools', 'next_cursor'],
          properties: {
            tools: { type: 'array', items: ref('ToolSummary') },
            next_cursor: { type: ['string', 'null'] },
          },
        },
        Tool: {
          type: 'object',
          description:
            'A tool record: `parameters` is one JSON Schema object merging every parameter; `bindings` says where each travels on the wire.',
          required: ['id', 'name', 'description', 'category', 'parameters', 'examples', 'origin'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
            category: { type: 'string' },
            parameters: { type: 'object' },
            bindings: {
              type: 'object',
              additionalProperties: {
                type: 'object',
                required: ['in', 'name'],
                properties: { in: { enum: ['path', 'query', 'header', 'cookie', 'body'] }, name: { type: 'string' } },
              },
            },
            response_status: { type: 'integer' },
            response_schema: {},
            examples: {
              type: 'array',
              items: {
                type: 'object',
                required: ['status', 'body'],
                properties: { name: { type: 'string' }, status: { type: 'integer' }, body: {} },
              },
            },
            origin: {
              type: 'object',
              required: ['format'],
              properties: { format: { enum: ['openapi', 'toolbench', 'mcp', 'openai'] } },
            },
          },
        },
        CallRequest: {
          type: 'object',
          additionalProperties: false,
          properties: { arguments: { type: 'object', default: {} } },
        },
        BatchRequest: {
          type: 'object',
          required: ['calls'],
          properties: {
            calls: {
              type: 'array',
              minItems: 1,
              maxItems: maxBatch,
              items: {
                type: 'object',
                required: ['tool'],
                additionalProperties: false,
                properties: { tool: { type: 'string' }, arguments: { type: 'object', default: {} } },
              },
            },
          },
        },
        BatchResponse: {
          type: 'object',
          required: ['results'],
          properties: {
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['status', 'body', 'source'],
                properties: {
                  status: { type: 'integer' },
                  body: {},
                  source: { enum: ['cache', 'example', 'model', 'synth', 'rule', 'real'] },
                  error: { enum: ['rate_limit', 'network', 'timeout', 'auth'] },
                  headers: {
                    type: 'object',
                    additionalProperties: { type: 'string' },
                    description: 'Headers the simulated API sent (Retry-After…), when any.',
                  },
                },
              },
            },
          },
        },
        SearchRequest: {
          type: 'object',
          properties: {
            query: { type: 'string' },
            queries: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 64 },
            k: { type: 'integer', minimum: 1, default: 3 },
            retriever: { type: 'string', enum: ['bm25', 'use', 'dense', 'hybrid'], default: 'bm25' },
            category: { type: 'string' },
          },
          additionalProperties: false,
        },
        SearchHit: {
          type: 'object',
          required: ['id', 'name', 'description', 'score', 'category', 'origin'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
            score: { type: 'number' },
            category: { type: 'string' },
            origin: { type: 'object' },
          },
        },
        SearchResponse: {
          type: 'object',
          required: ['results'],
          properties: {
            query: { type: 'string' },
            results: {
              type: 'array',
              items: {
                oneOf: [
                  ref('SearchHit'),
                  {
                    type: 'object',
                    required: ['query', 'results'],
                    properties: { query: { type: 'string' }, results: { type: 'array', items: ref('SearchHit') } },
                  },
                ],
              },
            },
          },
        },
        Edge: {
          type: 'object',
          required: ['src', 'dst', 'kind', 'rule', 'score', 'evidence'],
          properties: {
            src: { type: 'string' },
            dst: { type: 'string' },
            kind: { type: 'string', enum: ['hard', 'soft'] },
            rule: { type: 'string' },
            score: { type: 'number' },
            evidence: { type: 'string' },
          },
        },
        ToolEdges: {
          type: 'object',
          required: ['id', 'in', 'out'],
          properties: {
            id: { type: 'string' },
            in: { type: 'array', items: ref('Edge') },
            out: { type: 'array', items: ref('Edge') },
          },
        },
        SubgraphRequest: {
          type: 'object',
          required: ['tools'],
          properties: { tools: { type: 'array', items: { type: 'string' }, maxItems: 1000 } },
        },
        Subgraph: {
          type: 'object',
          required: ['tools', 'unknown', 'edges'],
          properties: {
            tools: { type: 'array', items: { type: 'string' } },
            unknown: { type: 'array', items: { type: 'string' } },
            edges: { type: 'array', items: ref('Edge') },
          },
        },
        OpenEnvAction: OPENENV_SCHEMAS.action,
        OpenEnvObservation: OPENENV_SCHEMAS.observation,
        OpenEnvState: OPENENV_SCHEMAS.state,
        OpenEnvResult: {
          type: 'object',
          required: ['observation', 'reward', 'done'],
          properties: {
            observation: ref('OpenEnvObservation'),
            reward: { type: ['number', 'null'], description: 'R_traj once done, else null.' },
            done: { type: 'boolean' },
          },
        },
        OpenEnvResetRequest: {
          description:
            "An episode config (`task` required unless the server has default tasks), and OpenEnv's `episode_id`.",
          $ref: '#/components/schemas/EpisodeConfigFields',
          properties: { episode_id: { type: ['string', 'null'], maxLength: 255 } },
          unevaluatedProperties: false,
        },
        OpenEnvStepRequest: {
          type: 'object',
          required: ['action'],
          properties: {
            action: ref('OpenEnvAction'),
            episode_id: { type: 'string' },
            timeout_s: { type: 'number' },
            request_id: { type: 'string' },
          },
          additionalProperties: false,
        },
        OpenEnvMetadata: {
          type: 'object',
          required: ['name', 'description'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            readme_content: { type: ['string', 'null'] },
            version: { type: ['string', 'null'] },
            author: { type: ['string', 'null'] },
            documentation_url: { type: ['string', 'null'] },
          },
        },
        ApiList: {
          type: 'object',
          required: ['apis'],
          properties: {
            apis: {
              type: 'array',
              items: {
                type: 'object',
                required: ['api_id', 'title', 'provider', 'category', 'format'],
                properties: {
                  api_id: { type: 'string' },
                  title: { type: 'string' },
                  provider: { type: 'string' },
                  category: { type: 'string' },
                  format: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
  // Routes mounted beside the server's own (the studio's runs) are documented only where this app mounts them.
  if (served)
    doc.paths = Object.fromEntries(
      Object.entries(doc.paths).filter(([path]) => path.startsWith('/apis') || served.has(path)),
    ) as typeof doc.paths;
  return doc;
}

/** The OpenAPI paths of an app's routes (`/v1/tools/:id` → `/v1/tools/{id}`). */
export function openApiPaths(routes: readonly { path: string }[]): ReadonlySet<string> {
  return new Set(routes.map((route) => route.path.replace(/:([A-Za-z_]+)/g, '{$1}')));
}
