import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAjv } from '../library/ajv.js';
import { problem } from '../simulator/problem.js';
import { problemResult } from './results.js';
import { SERVER_INFO, callTool, instructions, listTools, type Served, type ToolsDeps } from './tools-service.js';

/**
 * One validator for every session's server: the SDK builds an ajv per server otherwise (~20 KB a session), for
 * elicitation, which ToolEnv never asks for.
 */
const VALIDATOR = new AjvJsonSchemaValidator(createAjv());

/**
 * The MCP server of one 2025-era session. The SDK's low-level `Server` rather than `McpServer`: the tools are library
 * records whose JSON Schemas are listed as they are, a page at a time, and whose arguments the simulator's Rule layer
 * checks — `McpServer` wants a fixed set of zod schemas and lists them all at once.
 */
export function createSessionServer(deps: ToolsDeps, info: Served): Server {
  const { episode, listing } = info;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: listing.kind === 'working-set' } },
    instructions: instructions(
      listing,
      `This session records its calls as ToolEnv episode ${episode}: ` +
        `GET /v1/episodes/${episode} returns the trajectory.`,
      true,
    ),
    jsonSchemaValidator: VALIDATOR,
  });

  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    listTools(deps, listing, episode, request.params?.cursor),
  );

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    const outcome = await callTool(deps, info, name, input);
    if (outcome.kind === 'unknown-tool') {
      return problemResult(
        problem(
          404,
          'Unknown tool',
          `this session offers no tool ${JSON.stringify(name)}; tools/list names the ones it does`,
        ),
        { episode },
      );
    }
    if (outcome.grewWorkingSet) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
    return outcome.result;
  });
  return server;
}
