import { Hono } from 'hono';
import { servedGraph, type AppContext } from '../context.js';
import { isPlainObject, readJsonBody } from '../json-body.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { GRAPH_FILE, type Graph } from '../../graph/store.js';

/** Most tools in one subgraph query: an execution plan's tool set, with room to spare. */
export const MAX_SUBGRAPH_TOOLS = 1000;

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
        `no dependency graph at ${ctx.store.dir} (expected ${GRAPH_FILE} there); build one with \`toolenv graph build\``,
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
    const body = await readJsonBody(c);
    const tools = isPlainObject(body) ? body.tools : undefined;
    if (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string')) {
      throw httpProblem(400, 'the request body must be a JSON object {"tools": [ID, ...]}', {
        title: 'Invalid request body',
      });
    }
    if (tools.length > MAX_SUBGRAPH_TOOLS) {
      throw httpProblem(400, `at most ${MAX_SUBGRAPH_TOOLS} tools per subgraph, got ${tools.length}`, {
        title: 'Invalid request body',
        extra: { max_tools: MAX_SUBGRAPH_TOOLS },
      });
    }
    const g = open();
    const ids = [...new Set(tools as string[])];
    return c.json({ tools: ids, unknown: ids.filter((id) => !g.has(id)), edges: g.subgraph(ids) });
  });
  return app;
}
