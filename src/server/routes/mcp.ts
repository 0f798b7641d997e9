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

/** 404 is what the transport specification asks for: a client seeing it starts a new session. */
function unknownSession(id: string): Response {
  return problemResponse(
    404,
    `no MCP session ${JSON.stringify(id)}: it was closed or expired; send a new initialize request`,
    { title: 'Unknown MCP session' },
  );
}
