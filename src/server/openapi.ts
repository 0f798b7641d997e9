import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { episodeComponentSchemas } from '../episodes/schema.js';
import { schemasDir } from '../paths.js';
import { OPENENV_SCHEMAS } from './openenv/schema.js';
import { CONTROL_QUERY_PARAMS } from './prefer.js';
import { problemDoc, ref, type Operations } from './openapi-parts.js';

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
 * client reached: its paths are the operations the route modules the app mounts declare, in the order given. `auth`
 * adds the bearer scheme that `--api-key` turns on (everything but /healthz).
 */
export function serverOpenApi(
  origin: string,
  operations: readonly Operations[],
  { auth, maxBatch }: { auth: boolean; maxBatch: number },
): Record<string, unknown> {
  return {
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
      { name: 'Model' },
    ],
    paths: mergedPaths(operations),
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
}

/** Declarations merged by path: two route modules may declare methods of one path. */
function mergedPaths(declared: readonly Operations[]): Operations {
  const paths: Operations = {};
  for (const operations of declared)
    for (const [path, item] of Object.entries(operations)) paths[path] = { ...paths[path], ...item };
  return paths;
}
