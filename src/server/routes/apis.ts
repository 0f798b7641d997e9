import { Hono, type Context } from 'hono';
import type { Tool } from '../../library/tool.js';
import { getCookie } from 'hono/cookie';
import type { AppContext } from '../context.js';
import { requestCredentials } from '../credentials.js';
import { parseJson } from '../json-body.js';
import { CONTROL_QUERY_PARAMS, readControls } from '../prefer.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../../simulator/problem.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { requestHeader } from '../request-header.js';
import { buildArguments, type RestBody } from '../rest/arguments.js';
import { apiBaseUrl } from '../rest/catalog.js';
import { API_ROOT_HEADER } from '../rest/document.js';
import { matchRoute } from '../rest/matcher.js';
import { missingBodyMembers } from '../rest/body-requirements.js';
import { unmetSecurity, type Refusal } from '../rest/security.js';
import { EPISODE_HEADER } from '../../episodes/header.js';
import type { Arguments, CallControls, CallResult } from '../../simulator/types.js';
import { MISSING_CREDENTIALS, vendorError } from '../../simulator/vendor-error.js';
import { missingBody, notAcceptable, PROBLEM_ACCEPTED, restAnswer } from '../rest/answer.js';
import { quoteLongIntegers } from '../rest/big-integers.js';
import { negotiate } from '../rest/negotiate.js';
import { documentedTypes, NO_FACTS, type OperationFacts } from '../rest/operation-facts.js';
import { episodeCallResult } from '../episode-call.js';
import { CONTROLS, EPISODE_HEADER_PARAM, json, PROBLEMS, ref, SIMULATED, type Operations } from '../openapi-parts.js';

const PREFIX = '/apis/';
/** How many alternatives a 404 lists when operations at a path are told apart by a header or query value. */
const LISTED_CONDITIONS = 20;

/**
 * Each API's real HTTP shape: `GET /apis` lists the APIs, `GET /apis/{api_id}/openapi.json` serves the API's
 * document pointed at this server, and `ANY /apis/{api_id}/{path…}` routes a request by method and path template to
 * one tool, rebuilds its arguments from path, query, headers, cookies and body, and answers through the simulator.
 * (Hono answers HEAD by running GET and dropping the body.)
 */
export function apiRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get('/apis', (c) => c.json({ apis: ctx.store.apis() }));
  // hono's `/apis/*` matches `/apis` itself too: that path is the listing's, so another method there is a 405.
  app.all('/apis/*', (c) => (c.req.path === '/apis' ? c.notFound() : restCall(ctx, c)));
  return app;
}

/** The methods the REST surface's path documents: `app.all` passes every method on to the API's operations. */
const REST_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** One method of the REST surface. */
const restOperation = (method: string) => ({
  operationId: `rest${method[0]!.toUpperCase()}${method.slice(1)}`,
  tags: ['REST surface'],
  summary: `${method.toUpperCase()} an operation of an API, in its own HTTP shape`,
  description:
    'Routed by method and path template among the operations of the API that the library holds; the arguments are ' +
    'rebuilt from path, query (typed by the parameter schema), headers, cookies and the body. `api_id` may contain ' +
    'slashes (`amazonaws.com/acm`): the longest known api_id prefix of the path wins, and `path` is the rest of it, ' +
    'slashes included. A path with no operation is 404, a path whose operations take other methods is 405 with ' +
    "`Allow`. The simulated API's errors (refused arguments, injected and forced errors, an episode's deleted " +
    "resources) come in the operation's declared error shape where it declares a body for the status, " +
    '`x-toolenv-problem` naming the problem they stand for; ' +
    '`Accept: application/problem+json` asks for the problem itself. Answers come in a media type the operation ' +
    'documents (`Accept` choosing among them; where it admits none, 406 if the operation declares one); an error ' +
    'status the operation does not ' +
    'declare carries `x-toolenv-undeclared-status`.',
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

/** The operations of apiRoutes: `/apis/*` routes both the API documents and the REST surface. */
export const apiOperations: Operations = {
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
};

async function restCall(ctx: AppContext, c: Context): Promise<Response> {
  const url = new URL(c.req.url);
  const method = c.req.method;
  const raw = url.pathname.slice(PREFIX.length);
  const trailingSlash = raw.endsWith('/');
  const segments = (trailingSlash ? raw.slice(0, -1) : raw).split('/').map(decodeSegment);
  // An api_id is made of plain segments only: "%2F", "..", "\" never join or leave one.
  const plain = segments.findIndex((s) => s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s));
  const resolved = ctx.catalog.resolve(plain === -1 ? segments : segments.slice(0, plain));
  if (!resolved) {
    return problemResponse(404, `no API in the library matches ${JSON.stringify(url.pathname)}; GET /apis lists them`, {
      title: 'Unknown API',
    });
  }
  const { apiId } = resolved;
  const rest = segments.slice(apiId.split('/').length);

  if (rest.length === 1 && rest[0] === 'openapi.json' && (method === 'GET' || method === 'HEAD')) {
    // Through `serve --api-port` the API lives at that port's root.
    const document = ctx.catalog.document(
      apiId,
      c.req.header(API_ROOT_HEADER) === '1' ? url.origin : apiBaseUrl(url.origin, apiId),
    );
    if (document === undefined)
      return problemResponse(404, `API ${JSON.stringify(apiId)} has no OpenAPI document in the library`, {
        title: 'No API document',
      });
    return c.body(document, 200, { 'content-type': 'application/json' });
  }

  const routes = ctx.catalog.routes(apiId);
  if (routes.operations.length === 0) {
    return problemResponse(
      404,
      `API ${JSON.stringify(apiId)} has no REST operations in the library; ` +
        'call its tools with POST /v1/tools/{id}/call',
      { title: 'No REST surface' },
    );
  }
  const contentType = c.req.header('content-type') ?? '';
  const form = /^application\/x-www-form-urlencoded\b/i.test(contentType)
    ? new URLSearchParams(await bodyText(c))
    : undefined;
  // Read before routing only to tell apart variants that differ by their bodies (hono keeps the text for readBody).
  const jsonText =
    form === undefined && (contentType === '' || /json/i.test(contentType)) ? await bodyText(c) : undefined;
  let jsonBody: { value: unknown } | undefined;
  const bodyValue = () => (jsonBody ??= { value: parseOrUndefined(jsonText) }).value;
  const path = `/${rest.join('/')}${trailingSlash && rest.length > 0 ? '/' : ''}`;
  const has = (name: string, value?: string) => {
    const values = [...url.searchParams.getAll(name), ...(form?.getAll(name) ?? [])];
    const header = c.req.header(name);
    if (header !== undefined) values.push(header);
    return value === undefined ? values.length > 0 : values.includes(value);
  };
  const match = matchRoute(routes, {
    method,
    segments: rest,
    trailingSlash,
    has,
    missingRequired: (id) => {
      const tool = ctx.store.get(id);
      const carries = (name: string) =>
        has(name) || hasBracketed(url.searchParams, name) || (form !== undefined && hasBracketed(form, name));
      return missingRequired(tool, carries) + (tool ? missingBodyMembers(tool, bodyValue()) : 0);
    },
  });
  switch (match.kind) {
    case 'no-path':
      return problemResponse(
        404,
        `API ${JSON.stringify(apiId)} has no operation at ${JSON.stringify(path)} in the library`,
        { title: 'Unknown operation' },
      );
    case 'method-not-allowed': {
      const allow = match.allow.join(', ');
      if (method === 'OPTIONS') return c.body(null, 204, { allow: `${allow}, OPTIONS` });
      return problemResponse(
        405,
        `${method} ${path} is not an operation of API ${JSON.stringify(apiId)}; allowed: ${allow}`,
        {
          headers: { allow },
          extra: { allow: match.allow },
        },
      );
    }
    case 'unmet-conditions': {
      const listed = match.conditions.slice(0, LISTED_CONDITIONS).join('; ');
      const more =
        match.conditions.length > LISTED_CONDITIONS ? ` (and ${match.conditions.length - LISTED_CONDITIONS} more)` : '';
      return problemResponse(
        404,
        `${method} ${path} of API ${JSON.stringify(apiId)} is told apart ` +
          `by a query parameter or header; send one of: ${listed}${more}`,
        {
          title: 'Unknown operation',
        },
      );
    }
    case 'operation': {
      const tool = ctx.store.get(match.id);
      if (!tool) throw new Error(`the library lists operation ${match.id} of ${apiId} but holds no such tool`);
      const controls = readControls(requestHeader(c, 'prefer'), url.searchParams);
      const { operations, document } = ctx.catalog.facts(apiId);
      const facts = operations.get(tool.id) ?? NO_FACTS;
      const accept = c.req.header('accept');
      const reply = (result: CallResult) => restAnswer({ facts, document }, result, accept, ctx.httpMetrics);
      if (ctx.security === 'enforce') {
        const refused = unmetSecurity(ctx.catalog.security(apiId), tool.id, {
          header: (name) =>
            name === 'authorization' && ctx.auth && !c.get('keyInHeader') ? undefined : c.req.header(name),
          query: (name) => url.searchParams.get(name) ?? undefined,
          cookie: (name) => getCookie(c, name),
        });
        if (refused) return reply(await restError(c, tool, unauthenticated(refused, facts), {}, controls, ctx.seed));
      }
      const success = documentedTypes(facts, tool.response_status ?? 200);
      // Accept admitting none of the documented types: a 406 where the operation allows one; elsewhere the header is
      // disregarded (RFC 9110 §12.5.1 lets a server do either) and the answer comes in the default documented type.
      if (
        success !== undefined &&
        success.types.length > 0 &&
        negotiate(success.types, accept) === undefined &&
        documentedTypes(facts, 406) !== undefined
      )
        return reply(await restError(c, tool, notAcceptable(success.types, accept), {}, controls, ctx.seed));
      const body = await readBody(c, contentType, form);
      if (body === undefined && facts.bodyRequired)
        return reply(await restError(c, tool, missingBody(tool), {}, controls, ctx.seed));
      const query = new URLSearchParams(url.searchParams);
      for (const param of Object.values(CONTROL_QUERY_PARAMS)) query.delete(param);
      const args = buildArguments(tool, {
        params: match.params,
        query,
        // With an API key sent as Authorization, that header is ToolEnv's: it must never become a tool argument (or a
        // cache key). Sent as x-toolenv-key, Authorization is the API's own token and travels like any header.
        header: (name) =>
          ctx.auth && !c.get('keyInHeader') && name.toLowerCase() === 'authorization' ? undefined : c.req.header(name),
        cookies: getCookie(c),
        // A `null` body the document admits carries no members.
        body: body?.kind === 'json' && body.value === null && facts.bodyAdmitsNull ? undefined : body,
      });
      const episode = requestHeader(c, EPISODE_HEADER);
      const result =
        episode !== undefined
          ? await episodeCallResult(ctx.episodes, episode, tool.id, args, controls)
          : await ctx.simulator.call(tool.id, args, { controls, credentials: requestCredentials(ctx, c) });
      return reply(await restError(c, tool, result, args, controls, ctx.seed));
    }
  }
}

/** An SDK reads the API's own error shape; a client that asks for problem+json gets ToolEnv's. */
async function restError(
  c: Context,
  tool: Tool,
  result: CallResult,
  args: Arguments,
  controls: CallControls,
  seed: number,
): Promise<CallResult> {
  if (PROBLEM_ACCEPTED.test(c.req.header('accept') ?? '')) return result;
  return vendorError(tool, result, args, controls, seed);
}

/**
 * The Rule layer's refusal of credentials the operation's security wants: 401, or 403 where the operation declares
 * that and no 401 (nor `4XX`, `default`), so the refusal takes a status its document lists.
 */
function unauthenticated(refusal: Refusal, facts: OperationFacts): CallResult {
  const status = documentedTypes(facts, 401) === undefined && facts.responses.has('403') ? 403 : 401;
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    ...(refusal.challenge !== undefined ? { 'www-authenticate': refusal.challenge } : {}),
  };
  return {
    status,
    body: problem(status, MISSING_CREDENTIALS, `${refusal.detail} (serve --security enforce)`),
    source: 'rule',
    headers,
  };
}

/** Required query and header parameters of a tool that the request does not carry (path ones matched already). */
function missingRequired(tool: Tool | undefined, carries: (name: string) => boolean): number {
  if (!tool) return 0;
  let missing = 0;
  for (const property of tool.parameters.required ?? []) {
    const binding = tool.bindings?.[property];
    if ((binding?.in === 'query' || binding?.in === 'header') && !carries(binding.name)) missing++;
  }
  return missing;
}

/** A JSON body's value for routing; undefined when there is none or it is malformed (readBody refuses that later). */
function parseOrUndefined(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `name[member]=…`: a deepObject or bracket-encoded object parameter. */
function hasBracketed(params: URLSearchParams, name: string): boolean {
  const prefix = `${name}[`;
  for (const key of params.keys()) if (key.startsWith(prefix)) return true;
  return false;
}

async function readBody(
  c: Context,
  contentType: string,
  form: URLSearchParams | undefined,
): Promise<RestBody | undefined> {
  if (form) return { kind: 'form', fields: groupFields(form) };
  if (/^multipart\/form-data\b/i.test(contentType)) {
    let data: FormData;
    try {
      data = await c.req.formData();
    } catch (error) {
      throw httpProblem(400, `malformed multipart/form-data body: ${(error as Error).message}`, {
        title: 'Invalid request body',
      });
    }
    const fields = new Map<string, string[]>();
    for (const [name, value] of data) {
      fields.set(name, [...(fields.get(name) ?? []), typeof value === 'string' ? value : await value.text()]);
    }
    return { kind: 'form', fields };
  }
  const text = await bodyText(c);
  if (text === '') return undefined;
  // application/json, application/*+json, and vendor types such as AWS's application/x-amz-json-1.0.
  if (contentType === '' || /json/i.test(contentType)) {
    const exact = /\d{16}/.test(text) ? quoteLongIntegers(text) : text;
    return { kind: 'json', value: parseJson(exact, 'request body') };
  }
  return { kind: 'text', value: text };
}

/**
 * The request body as text. GET and HEAD bodies are never read (node-server hands hono none), and asking for one
 * anyway makes @hono/node-server build a whole web Request: most of a REST GET's cost.
 */
function bodyText(c: Context): Promise<string> {
  return c.req.method === 'GET' || c.req.method === 'HEAD' ? Promise.resolve('') : c.req.text();
}

function groupFields(form: URLSearchParams): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const [name, value] of form) fields.set(name, [...(fields.get(name) ?? []), value]);
  return fields;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw httpProblem(400, `malformed percent-encoding in path segment ${JSON.stringify(segment)}`, {
      title: 'Invalid path',
    });
  }
}
