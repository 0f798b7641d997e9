import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EpisodeError } from '../episodes/errors.js';
import type { EpisodeStore } from '../episodes/store.js';
import type { Action } from '../wire/episodes.js';
import type { LibraryStore } from '../library/store.js';
import { createAjv } from '../library/ajv.js';
import { problem } from '../simulator/problem.js';
import { metaAction } from './meta-tools.js';
import { observationResult, problemResult } from './results.js';
import type { Listing } from './session-params.js';
import { listPage, metaTools, offers } from './tool-list.js';

const VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
/** One validator for every session's server: the SDK builds an ajv per server otherwise (~20 KB a session), for elicitation, which ToolEnv never asks for. */
const VALIDATOR = new AjvJsonSchemaValidator(createAjv());

export interface SessionDeps {
  store: LibraryStore;
  episodes: EpisodeStore;
}

/** What one MCP session serves: its tool listing, and the episode its calls are recorded in. */
export interface SessionInfo {
  episode: string;
  listing: Listing;
}

/**
 * The MCP server of one session. The SDK's low-level `Server` rather than `McpServer`: the tools are library records
 * whose JSON Schemas are listed as they are, a page at a time, and whose arguments the simulator's Rule layer
 * checks — `McpServer` wants a fixed set of zod schemas and lists them all at once.
 */
export function createSessionServer(deps: SessionDeps, info: SessionInfo): Server {
  const workingSet = () => deps.episodes.summary(info.episode)?.working_set ?? [];
  const server = new Server(
    { name: 'toolenv', title: 'ToolEnv', version: VERSION },
    { capabilities: { tools: { listChanged: info.listing.kind === 'working-set' } }, instructions: instructions(info), jsonSchemaValidator: VALIDATOR },
  );

  server.setRequestHandler(ListToolsRequestSchema, (request) => listPage(info.listing, request.params?.cursor, deps.store, workingSet));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    const meta = { episode: info.episode };
    let action: Action;
    if (metaTools(info.listing).includes(name)) {
      const parsed = metaAction(name, input);
      if (!parsed.ok) return problemResult(parsed.problem, meta);
      action = parsed.action;
    } else if (offers(info.listing, name, deps.store, workingSet)) {
      action = { type: 'tool_call', tool: name, arguments: input ?? {} };
    } else {
      return problemResult(problem(404, 'Unknown tool', `this session offers no tool ${JSON.stringify(name)}; tools/list names the ones it does`), meta);
    }

    const known = info.listing.kind === 'working-set' ? workingSet().length : 0;
    try {
      const result = await deps.episodes.step(info.episode, { actions: [action] });
      if (info.listing.kind === 'working-set' && workingSet().length > known) {
        await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      }
      return observationResult(result.observations[0]!, { ...meta, step: result.step });
    } catch (error) {
      if (!(error instanceof EpisodeError)) throw error;
      return problemResult(problem(error.status, error.title, error.message, error.errors ? { errors: error.errors } : {}), meta);
    }
  });
  return server;
}

function instructions({ episode, listing }: SessionInfo): string {
  return (
    'ToolEnv serves simulated versions of real APIs: every call is answered with the HTTP status and JSON body the API would give; ' +
    `a failed call is a tool error whose body is an RFC 7807 problem saying what to fix. ${listingHint(listing)} ` +
    `This session records its calls as ToolEnv episode ${episode}: GET /v1/episodes/${episode} returns the trajectory.`
  );
}

function listingHint(listing: Listing): string {
  switch (listing.kind) {
    case 'meta':
      return 'Find tools with search_tool (a plain-words description of what you need), then call one with call_tool {tool, arguments}.';
    case 'tools':
      return 'The listed tools are library tools; call them directly.';
    case 'category':
      return `The listed tools are the library's ${JSON.stringify(listing.category)} tools (follow nextCursor for more pages); call them directly.`;
    case 'working-set':
      return 'Find tools with search_tool; every tool it finds joins the tool list (a tools/list_changed notification says when) and is called directly.';
  }
}
