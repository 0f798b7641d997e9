import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMatches, pathIndex } from '../../src/graph/candidates.js';
import { toolFeatures } from '../../src/graph/features.js';
import { createEdges, dataflowEdges } from '../../src/graph/hard-rules.js';
import { sharedReferenceEdges } from '../../src/graph/soft-rules.js';
import type { HttpMethod, JsonSchema, Tool } from '../../src/library/tool.js';

/** One API's tools from `[method, path, response]`; path parameters are required strings. */
function api(tools: [HttpMethod, string, JsonSchema?][]) {
  return tools.map(([method, path, response]) => {
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    return toolFeatures({
      id: `${method} ${path}`,
      name: `${method} ${path}`,
      description: '',
      category: 'test',
      parameters: {
        type: 'object',
        required: params,
        properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
      },
      bindings: Object.fromEntries(params.map((p) => [p, { in: 'path' as const, name: p }])),
      ...(response === undefined ? {} : { response_schema: response }),
      examples: [],
      origin: { format: 'openapi', api_id: 'x.test', method, path, operation_id: null, server: null },
    });
  });
}
const ids = (edges: { src: string; dst: string }[]) => edges.map((e) => `${e.src} > ${e.dst}`).sort();
const list = (props: Record<string, string>): JsonSchema => ({
  type: 'array',
  items: { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])) },
});

test('collections of one noun under different namespaces stay apart', () => {
  const tools = api([
    ['get', '/databases/mysql/instances', list({ id: 'string' })],
    ['get', '/databases/mongodb/instances/{instanceId}/backups'],
    ['get', '/databases/mysql/instances/{instanceId}/backups'],
  ]);
  assert.deepEqual(ids(dataflowEdges(keyMatches(tools, 'api').matches, 'api')), [
    'get /databases/mysql/instances > get /databases/mysql/instances/{instanceId}/backups',
  ]);
});

test('the context most of an API works under is no hard dependency when a call merely mentions it', () => {
  const scoped = Array.from({ length: 6 }, (_, i) => ['get', `/orgs/{org_id}/things${i}`] as [HttpMethod, string]);
  const tools = api([
    ...scoped,
    ['get', '/sites/{site_id}/wlans', list({ org_id: 'string' })],
    ['get', '/orgs', list({ id: 'string' })],
  ]);
  const matches = keyMatches(tools, 'api').matches;
  const hard = dataflowEdges(matches, 'api');
  assert.ok(hard.every((e) => e.src === 'get /orgs'));
  assert.equal(hard.length, 6);
  assert.equal(sharedReferenceEdges(matches).filter((e) => e.src === 'get /sites/{site_id}/wlans').length, 6);
});

test('creation reaches the member and its own sub-paths, not a filter word, another resource or deeper paths', () => {
  const tools = api([
    ['post', '/boards/{boardId}/lists'],
    ['get', '/boards/{boardId}/lists/{filter}'],
    ['put', '/boards/{boardId}/lists/{listId}'],
    ['post', '/carts/{cartId}/gift-message'],
    ['post', '/carts/{cartId}/gift-message/{itemId}'],
    ['post', '/pets'],
    ['get', '/pets/{petId}/photos'],
    ['get', '/pets/{petId}/photos/{photoId}'],
  ]);
  assert.deepEqual(ids(createEdges(tools, pathIndex(tools))), [
    'post /boards/{boardId}/lists > put /boards/{boardId}/lists/{listId}',
    'post /pets > get /pets/{petId}/photos',
  ]);
});

test('tools without a REST shape (ToolBench, MCP) connect through their names, within their own tool or server', () => {
  const tool = (origin: Tool['origin'], name: string, required: string[], response?: JsonSchema): Tool => ({
    id: `${origin.format}_${name}_${'tool_name' in origin ? origin.tool_name : ''}`,
    name,
    description: '',
    category: 'social',
    parameters: {
      type: 'object',
      required,
      properties: Object.fromEntries(required.map((p) => [p, { type: 'string' }])),
    },
    ...(response === undefined ? {} : { response_schema: response }),
    examples: [],
    origin,
  });
  const tb = (toolName: string) =>
    ({ format: 'toolbench', category: 'social', tool_name: toolName, api_name: 'x' }) as const;
  const features = [
    tool(tb('chirper'), 'list_users', [], list({ id: 'string', name: 'string' })),
    tool(tb('chirper'), 'get_user_posts', ['user_id']),
    tool(tb('other'), 'get_user_posts', ['user_id']),
    tool({ format: 'mcp', name: 'chirper.list_users' }, 'list_users', [], list({ id: 'string' })),
    tool({ format: 'mcp', name: 'chirper.get_user' }, 'get_user', ['user_id']),
  ].map((t) => toolFeatures(t));
  assert.deepEqual(ids(dataflowEdges(keyMatches(features, 'api').matches, 'api')), [
    'mcp_list_users_ > mcp_get_user_',
    'toolbench_list_users_chirper > toolbench_get_user_posts_chirper',
  ]);
});
