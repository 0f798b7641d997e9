import { Hono } from 'hono';
import type { SubgraphRequest } from '../../wire/schema-types.js';
import { servedGraph, type AppContext } from '../context.js';
import { readJsonBody } from '../json-body.js';
import { checkedBody } from '../request-body.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { GRAPH_FILE, type Graph } from '../../graph/store.js';
import { json, PROBLEMS, ref, type Operations } from '../openapi-parts.js';

/**
 * The tool-dependency graph: `GET /v1/graph/{id}` (in and out edges) and `POST /v1/graph/subgraph {"tools": […]}`
 * (the induced edges, which the phase reward scores an execution DAG against). The graph file opens on first use.
 */
export function graphRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const served = servedGraph(ctx.graph);
  const open = (): Graph => {
    const graph = served();
    // 409, not 503: no retry helps until someone runs the command (the same rule as an unbuilt search index).
    if (!graph) {
      throw httpProblem(
        409,
        `no dependency graph at ${ctx.store.dir} (expected ` +
          `${GRAPH_FILE} there); build one with \`toolenv graph build\``,
        {
          title: 'Graph not built',
          extra: { command: 'toolenv graph build' },
        },
      );
    }
    return graph;
  };

  app.get('/v1/graph/:id', (c) => {
    const id = c.req.param('id');
    const g = open();
    if (!g.has(id))
      return problemResponse(404, `no tool ${JSON.stringify(id)} in the dependency graph`, { title: 'Unknown tool' });
    return c.json({ id, ...g.edgesOf(id) });
  });

  app.post('/v1/graph/subgraph', async (c) => {
    const { tools } = checkedBody<SubgraphRequest>('SubgraphRequest', await readJsonBody(c), 'Invalid request body');
    const g = open();
    const ids = [...new Set(tools)];
    return c.json({ tools: ids, unknown: ids.filter((id) => !g.has(id)), edges: g.subgraph(ids) });
  });
  return app;
}

/** The operations of graphRoutes. */
export const graphOperations: Operations = {
  '/v1/graph/{id}': {
    get: {
      operationId: 'getToolEdges',
      tags: ['Graph'],
      summary: 'A tool’s dependency edges: in (tools it depends on) and out (tools that depend on it)',
      parameters: [{ $ref: '#/components/parameters/ToolId' }],
      responses: {
        '200': json('The edges, hard first.', ref('ToolEdges')),
        '401': PROBLEMS['401'],
        '404': PROBLEMS['404'],
        '409': { $ref: '#/components/responses/GraphUnavailable' },
      },
    },
  },
  '/v1/graph/subgraph': {
    post: {
      operationId: 'getSubgraph',
      tags: ['Graph'],
      summary: 'The dependency edges induced by a set of tools',
      requestBody: { required: true, content: { 'application/json': { schema: ref('SubgraphRequest') } } },
      responses: {
        '200': json('The induced edges.', ref('Subgraph')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '409': { $ref: '#/components/responses/GraphUnavailable' },
      },
    },
  },
};
