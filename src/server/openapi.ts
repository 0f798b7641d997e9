import { componentSchemas } from '../wire/schemas.js';
import { CONTROL_QUERY_PARAMS } from './prefer.js';
import { problemDoc, type Operations } from './openapi-parts.js';

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
        'Real tool interfaces from public OpenAPI documents, simulated: every call passes Rule → Cache → Response. ' +
        'Bodies are what the simulated API returns; ToolEnv metadata travels in `x-toolenv-*` headers; every error ' +
        "is `application/problem+json`, but for a simulated API's errors on its REST surface, which use the API's " +
        'declared error shape.',
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
            'Prism-style controls, comma-separated: `code=429` forces a status, `example=NAME` picks a named ' +
            'example, `dynamic=true` synthesizes a fresh body.',
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
          schema: { type: 'string', minLength: 1 },
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
            'Runs the call inside this episode: its injection stream and world state, recorded as a one-action step ' +
            '(404, 409, 403 as for a step).',
          schema: { type: 'string', minLength: 1 },
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
        NotFound: problemDoc('Unknown route, tool, named example, API or operation.'),
        MethodNotAllowed: {
          ...problemDoc('The path exists but not with this method.'),
          headers: { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } },
        },
        PayloadTooLarge: problemDoc('The request body is larger than the server’s body limit.'),
        ServerError: problemDoc('An unexpected server error (logged).'),
        GraphUnavailable: problemDoc(
          'The dependency graph of this library has not been built, or was built by another version: `command` names ' +
            'the build (`toolenv graph build`).',
        ),
        UnknownEpisode: problemDoc('No such episode: it never existed, was deleted, or expired.'),
        UnknownTools: problemDoc(
          "A well-formed config naming tools the library lacks (in `tools` or the task's `reference_tools`; with " +
            '`errors`).',
        ),
        UnknownGroup: problemDoc('No such group: it never existed, or all its episodes were deleted or expired.'),
        TooManyEpisodes: problemDoc(
          'The live-episode cap is reached, or the live episodes hold their byte budget (the detail says which).',
        ),
      },
      schemas: documentSchemas(maxBatch),
    },
  };
}

/** The wire shapes of schemas/, the batch bound this server was started with (`--max-batch`) in its request's. */
function documentSchemas(maxBatch: number): Record<string, unknown> {
  const schemas = componentSchemas();
  const batch = schemas.BatchRequest as { properties: { calls: object } };
  return {
    ...schemas,
    BatchRequest: {
      ...batch,
      properties: { ...batch.properties, calls: { ...batch.properties.calls, maxItems: maxBatch } },
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
