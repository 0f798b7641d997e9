import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { EpisodeStore } from '../../episodes/store.js';
import { isModern } from '../../mcp/era.js';
import { JsonRpcError, PARSE_ERROR, errorResponse } from '../../mcp/jsonrpc.js';
import type { McpSessionOptions } from '../../mcp/limits.js';
import { readSessionParams } from '../../mcp/session-params.js';
import type { McpSessions } from '../../mcp/sessions.js';
import type { AppContext } from '../context.js';
import { parseJson } from '../json-body.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { PROBLEMS, problemDoc, ref, type Operations } from '../openapi-parts.js';

/**
 * `/mcp`: the library over MCP's Streamable HTTP transport, in both eras. A 2026-07-28 `POST` stands alone: it names
 * its version in the body and headers, and its episode by header or URL. Before that, `POST` carries JSON-RPC
 * messages of a session (an initialize without `Mcp-Session-Id` opens one and its episode), and `DELETE` closes a
 * session. `GET` is 405: the server has nothing to say outside a request, which the transport lets it declare so.
 * Each era's code loads on its first request (the MCP SDK only with the first session), so `serve` starts without.
 */
export function mcpRoutes(ctx: AppContext, episodes: EpisodeStore, options?: McpSessionOptions): Hono {
  const app = new Hono();
  let loaded: Promise<{ sessions: McpSessions; isInitialize: (message: unknown) => boolean }> | undefined;
  const load = () =>
    (loaded ??= import('../../mcp/sessions.js').then(({ McpSessions }) => ({
      sessions: new McpSessions({ store: ctx.store, episodes }, options),
      isInitialize: McpSessions.isInitialize,
    })));

  app.post('/mcp', async (c) => {
    const text = await c.req.text();
    let message: unknown;
    try {
      message = parseJson(text, 'the MCP message');
    } catch (error) {
      // A 2026 client tells the server's era from a 400's body, so its parse error is JSON-RPC too.
      if (!(error instanceof HTTPException) || !isModern(c.req.raw.headers)) throw error;
      return errorResponse(null, new JsonRpcError(PARSE_ERROR, error.message));
    }
    if (isModern(c.req.raw.headers, message)) {
      const { answerModern } = await import('../../mcp/modern.js');
      return answerModern(c.req.raw, message, { store: ctx.store, episodes });
    }
    const { sessions, isInitialize } = await load();
    const id = c.req.header('mcp-session-id');
    if (id === undefined) {
      if (!isInitialize(message))
        throw httpProblem(
          400,
          'a request without an Mcp-Session-Id header must be an initialize request; it opens a session',
          { title: 'No MCP session' },
        );
      return sessions.open(c.req.raw, message, readSessionParams(new URL(c.req.url).searchParams, ctx.store));
    }
    return (await sessions.handle(id, c.req.raw, message)) ?? unknownSession(id);
  });

  app.delete('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    if (id === undefined)
      throw httpProblem(400, 'DELETE /mcp closes the session named by the Mcp-Session-Id header, and none was sent', {
        title: 'No MCP session',
      });
    const { sessions } = await load();
    return (await sessions.handle(id, c.req.raw)) ?? unknownSession(id);
  });

  return app;
}

/** The operations of mcpRoutes. */
/** A request or notification (`method`), or a response to the server's request (`id` with `result` or `error`). */
const JSON_RPC_MESSAGE = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string', minLength: 1 },
    params: { type: 'object' },
    result: { type: 'object' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
    },
  },
  oneOf: [{ required: ['method'] }, { required: ['id', 'result'] }, { required: ['id', 'error'] }],
};

export const mcpOperations: Operations = {
  '/mcp': {
    post: {
      operationId: 'mcpMessage',
      tags: ['MCP'],
      summary:
        'MCP over Streamable HTTP: a stateless 2026-07-28 request, or a JSON-RPC message of a session that an ' +
        'initialize opens with its episode',
      description:
        'The Model Context Protocol, Streamable HTTP transport (`Accept: application/json, text/event-stream`). ' +
        '**2026-07-28** (a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`, or whose ' +
        '`MCP-Protocol-Version` header names no handshake version): one request per POST, no session; ' +
        '`server/discover`, `tools/list` and `tools/call`, answered in JSON with `resultType`; the episode tool ' +
        'calls record into is named by `x-toolenv-episode` or `?episode=` on every request; listing parameters are ' +
        'read on every request; a rejection is a JSON-RPC error (400, or 404 for a method 2026-07-28 lacks). ' +
        '**2025-11-25 and earlier**: a request without `Mcp-Session-Id` must be an `initialize`: it opens a session, ' +
        'answered with its `Mcp-Session-Id`, and an episode the session records every tool call into ' +
        '(`x-toolenv-episode`; also named in the initialize `instructions`). With `?episode=ID` the session records ' +
        'into an existing episode instead, which it then neither opens nor ends. Query parameters are read from the ' +
        'initialize request only. Tools, in both: `search_tool {query, k?}` and `call_tool {tool, arguments}`, or ' +
        'with `tools=`, `category=` or `working_set` library tools listed as native MCP tools.',
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
        content: {
          'application/json': {
            schema: {
              description: 'A JSON-RPC 2.0 message, or a batch of them (2025-03-26 and earlier).',
              oneOf: [JSON_RPC_MESSAGE, { type: 'array', minItems: 1, items: JSON_RPC_MESSAGE }],
            },
          },
        },
      },
      responses: {
        '200': {
          description:
            'The JSON-RPC answers: JSON, or for a `working_set` session a server-sent event stream (which also ' +
            'carries `tools/list_changed`).',
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
            'A problem; for a 2026-07-28 request a JSON-RPC error: -32700 unparseable, -32600 not one request, ' +
            '-32602 a bad envelope, parameter or unknown tool, -32020 a routing header that disagrees with the body, ' +
            '-32022 an unsupported version.',
          content: {
            'application/problem+json': { schema: ref('Problem') },
            'application/json': { schema: { description: 'A JSON-RPC 2.0 error response.' } },
          },
        },
        '401': PROBLEMS['401'],
        '404': {
          description:
            'No such session (closed or expired: initialize again), or no such episode for `?episode=`; for a ' +
            '2026-07-28 request, a JSON-RPC -32601 naming a method it lacks.',
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
};

/** 404 is what the transport specification asks for: a client seeing it starts a new session. */
function unknownSession(id: string): Response {
  return problemResponse(
    404,
    `no MCP session ${JSON.stringify(id)}: it was closed or expired; send a new initialize request`,
    { title: 'Unknown MCP session' },
  );
}
