import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Action } from '../wire/episodes.js';
import { problem, type Problem } from '../simulator/problem.js';

export const SEARCH_TOOL = 'search_tool';
export const CALL_TOOL = 'call_tool';
/** Most tools one search_tool returns: enough to choose from, few enough for a model's context. */
export const MAX_SEARCH_K = 50;

const SEARCH_HIT = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The tool id: the `tool` of call_tool.' },
    name: { type: 'string' },
    description: { type: 'string' },
    category: { type: 'string' },
    score: { type: 'number' },
  },
  required: ['id', 'name', 'description', 'category', 'score'],
};

/** ParaAct's `search_tool` action as an MCP tool; its result is the episode's search observation. */
export const searchTool: McpTool = {
  name: SEARCH_TOOL,
  title: 'Search the tool library',
  description:
    'Finds the library tools that fit a capability, described in plain words ("get the weather forecast for a ' +
    'city"). Returns the best k tools with their id, name, ' +
    'description, category and relevance score; call one with call_tool.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'What the tool should do.' },
      k: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_K, description: 'How many tools to return (default 3).' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      type: { const: 'search_tool' },
      query: { type: 'string' },
      results: { type: 'array', items: SEARCH_HIT },
    },
    required: ['query', 'results'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The tool call observation, the structured result of call_tool and of every library tool listed natively. */
export const CALL_OBSERVATION_SCHEMA: McpTool['outputSchema'] = {
  type: 'object',
  properties: {
    type: { const: 'tool_call' },
    tool: { type: 'string' },
    status: { type: 'integer', description: "The simulated API's HTTP status." },
    body: { description: "The simulated API's body: a JSON value, or an RFC 7807 problem for a failed call." },
    source: { enum: ['cache', 'example', 'model', 'synth', 'rule', 'state', 'real'] },
    error: { enum: ['rate_limit', 'network', 'timeout', 'auth'], description: 'Set when the error was injected.' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    state: { type: 'string', description: "How the episode's world state answered or changed the call." },
  },
  required: ['tool', 'status', 'body', 'source'],
};

/** ParaAct's `tool_call` action as an MCP tool. */
export const callTool: McpTool = {
  name: CALL_TOOL,
  title: 'Call a library tool',
  description:
    "Calls one library tool by its id (from search_tool) with its arguments. The result is the simulated API's " +
    'answer: HTTP status, JSON body, and where the answer came from; a failed call (bad arguments, unknown tool, ' +
    'injected error) is marked as an error and its body is an RFC 7807 problem that says what went wrong.',
  inputSchema: {
    type: 'object',
    properties: {
      tool: { type: 'string', minLength: 1, description: 'The tool id, as search_tool returns it.' },
      arguments: {
        type: 'object',
        description: "The tool's arguments, as its parameter schema describes them (default {}).",
      },
    },
    required: ['tool'],
    additionalProperties: false,
  },
  outputSchema: CALL_OBSERVATION_SCHEMA,
  annotations: { openWorldHint: false },
};

export type MetaOutcome = { ok: true; action: Action } | { ok: false; problem: Problem };

/** A meta tool's arguments as an episode action, or the 400 problem naming what was wrong with them. */
export function metaAction(name: string, input: Record<string, unknown> | undefined): MetaOutcome {
  const args = input ?? {};
  if (name === SEARCH_TOOL) {
    const unknown = Object.keys(args).find((key) => key !== 'query' && key !== 'k');
    if (unknown !== undefined)
      return invalid(name, `unknown argument ${JSON.stringify(unknown)}; search_tool takes query and k`, `/${unknown}`);
    if (typeof args.query !== 'string' || args.query.trim() === '')
      return invalid(name, '"query" must be a non-empty string', '/query');
    if (
      args.k !== undefined &&
      (!Number.isInteger(args.k) || (args.k as number) < 1 || (args.k as number) > MAX_SEARCH_K)
    ) {
      return invalid(name, `"k" must be an integer between 1 and ${MAX_SEARCH_K}`, '/k');
    }
    return {
      ok: true,
      action: { type: 'search_tool', query: args.query, ...(args.k === undefined ? {} : { k: args.k as number }) },
    };
  }
  const unknown = Object.keys(args).find((key) => key !== 'tool' && key !== 'arguments');
  if (unknown !== undefined)
    return invalid(
      name,
      `unknown argument ${JSON.stringify(unknown)}; call_tool takes tool and arguments`,
      `/${unknown}`,
    );
  if (typeof args.tool !== 'string' || args.tool === '')
    return invalid(name, '"tool" must be a tool id (a non-empty string)', '/tool');
  const callArgs = args.arguments ?? {};
  if (callArgs === null || typeof callArgs !== 'object' || Array.isArray(callArgs))
    return invalid(name, '"arguments" must be a JSON object', '/arguments');
  return { ok: true, action: { type: 'tool_call', tool: args.tool, arguments: callArgs as Record<string, unknown> } };
}

function invalid(tool: string, message: string, path: string): MetaOutcome {
  return {
    ok: false,
    problem: problem(400, 'Invalid tool input', `${tool}: ${message}`, { errors: [{ path, message }] }),
  };
}
