import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Trajectory } from '../../src/wire/episodes.js';

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The episode id the server sent in the `x-toolenv-episode` header. */
  episode: string;
}

/** The SDK's own client, connected to `/mcp` (plus `query`) of a running server. */
export async function connect(
  baseUrl: string,
  { query = '', headers }: { query?: string; headers?: Record<string, string> } = {},
): Promise<Connected> {
  const episodes: string[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
    requestInit: headers ? { headers } : undefined,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const episode = response.headers.get('x-toolenv-episode');
      if (episode !== null) episodes.push(episode);
      return response;
    },
  });
  const client = new Client({ name: 'toolenv-test', version: '1.0.0' });
  await client.connect(transport);
  if (episodes.length === 0) throw new Error('the initialize answer carried no x-toolenv-episode header');
  return { client, transport, episode: episodes[0]! };
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The first text item of a tool result, parsed as JSON. */
export function textJson(result: CallToolResult): any {
  const item = result.content[0];
  if (item?.type !== 'text') throw new Error(`expected a text item, got ${JSON.stringify(result.content)}`);
  return JSON.parse(item.text);
}

export async function trajectory(
  baseUrl: string,
  episode: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Trajectory }> {
  const response = await fetch(`${baseUrl}/v1/episodes/${episode}`, { headers });
  return { status: response.status, body: (await response.json()) as Trajectory };
}

/** A raw JSON-RPC initialize, for the answers the SDK client would not show. */
export function initializeRequest(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/** The 2026-07-28 request envelope every stateless request carries in `params._meta`. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * A raw 2026-07-28 request, its routing headers set as a conforming client sets them; `headers` adds to them or,
 * with null, removes one.
 */
export function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  { id = 1, headers = {} }: { id?: string | number; headers?: Record<string, string | null> } = {},
): Promise<Response> {
  const routing: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(routing).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  return fetch(url, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: ENVELOPE, ...params } }),
  });
}

/** A JSON-RPC answer's body, after checking its status and that it is JSON. */
export async function rpcBody(
  response: Response,
  status: number,
): Promise<{ id: unknown; result?: any; error?: { code: number; message: string; data?: any } }> {
  assert.equal(response.status, status, await response.clone().text());
  assert.equal(response.headers.get('content-type'), 'application/json');
  return (await response.json()) as {
    id: unknown;
    result?: any;
    error?: { code: number; message: string; data?: any };
  };
}
