import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { EPISODE_HEADER } from '../episodes/header.js';
import { DEFAULT_RETRY_AFTER, httpProblem } from '../http/problem-response.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, type McpSessionOptions } from './limits.js';
import { createSessionServer } from './session-server.js';
import type { Served, ToolsDeps } from './tools-service.js';
import type { SessionParams } from './session-params.js';

interface LiveSession {
  info: Served;
  /** Whether the session opened its episode (and so ends it). */
  owned: boolean;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  closed: boolean;
}

/**
 * The live MCP sessions of one server, each with its own SDK transport and server and its episode. Idle sessions
 * are swept whenever a request reaches `/mcp`, so no timer outlives the app; an idle session nobody sweeps costs
 * only memory, and its episode expires in the episode store on its own clock.
 */
export class McpSessions {
  readonly maxSessions: number;
  readonly idleMs: number;
  private readonly live = new Map<string, LiveSession>();
  private readonly clock: () => number;
  private readonly idPrefix: string;
  private opening = 0;

  constructor(
    private readonly deps: ToolsDeps,
    options: McpSessionOptions = {},
  ) {
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.clock = options.clock ?? Date.now;
    this.idPrefix = options.idPrefix ?? '';
  }

  /** Whether a parsed POST body (one message or a batch) holds an initialize request. */
  static isInitialize(message: unknown): boolean {
    return Array.isArray(message) ? message.some(isInitializeRequest) : isInitializeRequest(message);
  }

  /**
   * Opens a session for an initialize request and answers it: attaches to the episode named by the parameters or
   * opens one, connects a fresh SDK server and transport, and lets the transport answer. When the transport refuses
   * the request (wrong Accept header…), nothing is kept.
   */
  async open(request: Request, message: unknown, params: SessionParams): Promise<Response> {
    this.sweep();
    if (this.live.size + this.opening >= this.maxSessions) {
      throw httpProblem(
        429,
        `this server holds at most ${this.maxSessions} MCP sessions; ` +
          'close one (DELETE /mcp) or wait for an idle one to expire',
        {
          title: 'Too many MCP sessions',
          headers: { 'retry-after': DEFAULT_RETRY_AFTER },
        },
      );
    }
    let episode: string;
    if (params.attach !== undefined) {
      if (this.deps.episodes.summary(params.attach) === undefined) {
        throw httpProblem(
          404,
          `no episode ${JSON.stringify(params.attach)}; create one with POST ` +
            '/v1/episodes, or leave ?episode= out and the session opens its own',
          {
            title: 'Unknown episode',
          },
        );
      }
      episode = params.attach;
    } else {
      episode = this.deps.episodes.create(params.config).id;
    }
    const owned = params.attach === undefined;
    this.opening++;
    try {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => this.idPrefix + randomUUID(),
        // Plain JSON answers cost the server less than an event stream per request; only a working-set session needs
        // the stream, to carry tools/list_changed along with the search that grew its list.
        enableJsonResponse: params.listing.kind !== 'working-set',
        onsessioninitialized: (id) => {
          this.live.set(id, session);
        },
      });
      const server = createSessionServer(this.deps, { episode, listing: params.listing });
      const session: LiveSession = {
        info: { episode, listing: params.listing },
        owned,
        transport,
        server,
        lastSeen: this.clock(),
        closed: false,
      };
      // Fires on DELETE /mcp, on expiry and on a refused initialize alike.
      server.onclose = () => this.forget(session);
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: message });
      if (transport.sessionId === undefined) {
        await server.close();
        return response;
      }
      return withEpisode(response, episode);
    } catch (error) {
      if (owned) this.deps.episodes.delete(episode);
      throw error;
    } finally {
      this.opening--;
    }
  }

  /**
   * Answers a request of a live session (`message` is the parsed body of a POST); undefined when there is no such
   * session.
   */
  async handle(id: string, request: Request, message?: unknown): Promise<Response | undefined> {
    this.sweep();
    const session = this.live.get(id);
    if (!session) return undefined;
    session.lastSeen = this.clock();
    const response = await session.transport.handleRequest(
      request,
      message === undefined ? undefined : { parsedBody: message },
    );
    return withEpisode(response, session.info.episode);
  }

  /** Closes the sessions idle longer than `idleMs`, ending the episodes they opened. */
  private sweep(): void {
    const now = this.clock();
    for (const session of this.live.values()) {
      if (now - session.lastSeen <= this.idleMs) continue;
      this.forget(session);
      void session.server.close();
    }
  }

  private forget(session: LiveSession): void {
    if (session.closed) return;
    session.closed = true;
    if (session.transport.sessionId !== undefined) this.live.delete(session.transport.sessionId);
    if (session.owned) this.deps.episodes.delete(session.info.episode);
  }
}

/** The episode id travels in a header too, for clients that read headers rather than the initialize instructions. */
function withEpisode(response: Response, episode: string): Response {
  response.headers.set(EPISODE_HEADER, episode);
  return response;
}
