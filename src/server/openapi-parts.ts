/** An OpenAPI operation object, as plain data. */
export type Operation = Record<string, unknown>;
/** One path's operations by lower-case HTTP method. */
export type PathItem = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'patch', Operation>>;
/** A route module's operations, keyed by OpenAPI path (`/v1/tools/{id}`), declared beside its handlers. */
export type Operations = Record<string, PathItem>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (description: string, schema: unknown) => ({
  description,
  content: { 'application/json': { schema } },
});
/** A response whose body is an RFC 7807 problem. */
export const problemDoc = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

/** The problems any route may answer, as refs to the document's shared responses. */
export const PROBLEMS = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '401': { $ref: '#/components/responses/Unauthorized' },
  '404': { $ref: '#/components/responses/NotFound' },
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
  '413': { $ref: '#/components/responses/PayloadTooLarge' },
  '500': { $ref: '#/components/responses/ServerError' },
};
/** The Prefer header and its query-parameter twins, taken by every route that calls a tool. */
export const CONTROLS = [
  { $ref: '#/components/parameters/Prefer' },
  { $ref: '#/components/parameters/ControlCode' },
  { $ref: '#/components/parameters/ControlExample' },
  { $ref: '#/components/parameters/ControlDynamic' },
];
export const EPISODE_HEADER_PARAM = { $ref: '#/components/parameters/EpisodeHeader' };
/** A simulated tool's answer, as the routes that call one pass it on. */
export const SIMULATED = {
  description: "The simulated tool's own status and body (a JSON value, or an RFC 7807 problem for 4xx/5xx answers).",
  headers: {
    'x-toolenv-source': {
      description:
        "Where the answer came from (`state`: an episode's world state; `real`: the real API, under serve --upstream).",
      schema: { type: 'string', enum: ['cache', 'example', 'model', 'synth', 'rule', 'state', 'real'] },
    },
    'x-toolenv-error': {
      description: 'The kind of injected error, when one was injected.',
      schema: { type: 'string', enum: ['rate_limit', 'network', 'timeout', 'auth'] },
    },
    'x-toolenv-step': {
      description: 'Inside an episode: the step the call was recorded as.',
      schema: { type: 'integer' },
    },
    'x-toolenv-state': {
      description: 'Inside an episode: what world state did.',
      schema: { type: 'string', enum: ['created', 'read', 'updated', 'deleted', 'listed', 'missing'] },
    },
  },
  content: { 'application/json': { schema: {} }, 'application/problem+json': { schema: ref('Problem') } },
};
