import { Hono } from 'hono';
import { schemaNumber } from '../../wire/schemas.js';
import type { AppContext } from '../context.js';
import { isPlainObject, readJsonBody } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';
import type { IndexMissingError, RetrieverName } from '../../retrieval/searcher.js';
import type { LexicalBuild } from '../index-build.js';
import { json, PROBLEMS, ref, type Operations } from '../openapi-parts.js';

/** Most queries in one request: a ParaAct exploration step fans out over a handful of capability slots. */
export const MAX_QUERIES = schemaNumber('server', '/$defs/SearchRequest/properties/queries/maxItems');

/**
 * `POST /v1/search` `{"query"} | {"queries": […]}, k?, retriever?, category?`: ParaAct's parallel `search_tool`
 * actions in one request. The retrieval module loads on the first search, so `serve` starts without it.
 */
export function searchRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post('/v1/search', async (c) => {
    const body = await readJsonBody(c);
    if (!isPlainObject(body))
      throw invalid('the request body must be a JSON object {"query": TEXT} or {"queries": [TEXT, ...]}');
    const known = new Set(['query', 'queries', 'k', 'retriever', 'category']);
    const extra = Object.keys(body).find((key) => !known.has(key));
    if (extra !== undefined)
      throw invalid(`unknown member ${JSON.stringify(extra)}; search takes query or queries, k, retriever, category`);
    const single = typeof body.query === 'string';
    if (single === (body.queries !== undefined))
      throw invalid('send exactly one of "query" (a string) or "queries" (an array of strings)');
    const queries = single ? [body.query as string] : body.queries;
    if (!Array.isArray(queries) || queries.length === 0 || !queries.every((q) => typeof q === 'string'))
      throw invalid('"queries" must be a non-empty array of strings');
    if (queries.length > MAX_QUERIES)
      throw invalid(`at most ${MAX_QUERIES} queries per request, got ${queries.length}`, { max_queries: MAX_QUERIES });
    if (body.k !== undefined && !Number.isInteger(body.k)) throw invalid('"k" must be an integer');
    if (body.retriever !== undefined && typeof body.retriever !== 'string')
      throw invalid('"retriever" must be a string');
    if (body.category !== undefined && typeof body.category !== 'string') throw invalid('"category" must be a string');
    const { search, SearchError, IndexMissingError, lexicalBuild } = await ctx.retrieval();
    try {
      const results = await search.search(queries as string[], {
        k: body.k as number | undefined,
        retriever: body.retriever as RetrieverName | undefined,
        category: body.category as string | undefined,
      });
      // An agent chooses among hits by what they do: each carries its tool's description, as episode searches do.
      const described = results.map((hits) =>
        hits.map((hit) => ({ ...hit, description: ctx.store.get(hit.id)?.description ?? '' })),
      );
      if (single) return c.json({ query: queries[0], results: described[0] });
      return c.json({ results: (queries as string[]).map((query, i) => ({ query, results: described[i] })) });
    } catch (error) {
      if (error instanceof IndexMissingError) throw indexMissing(error, lexicalBuild, ctx.log);
      if (error instanceof SearchError) throw invalid(error.message);
      throw error;
    }
  });
  return app;
}

/** The operations of searchRoutes. */
export const searchOperations: Operations = {
  '/v1/search': {
    post: {
      operationId: 'searchTools',
      tags: ['Retrieval'],
      summary: 'Top-k tools for one query or many (ParaAct’s parallel search_tool actions)',
      description:
        'Send exactly one of `query` or `queries` (at most 64). The retrieval index loads on the first search.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('SearchRequest') } } },
      responses: {
        '200': json('Results, best first; for `queries`, one entry per query in order.', ref('SearchResponse')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
      },
    },
  },
};

/** Seconds a client waits before asking again while the lexical index builds. */
const BUILD_RETRY_AFTER = 2;

/**
 * A search whose index is not there. The lexical one is built now, in a worker thread, and the request answered 503
 * with Retry-After: it takes seconds, and every search and episode needs it. A dense one (USE, an ONNX model) is not
 * built by the server: embedding the whole library takes minutes of every core and hundreds of MB, taken from the
 * rollouts being served, so the operator runs the command the problem names (it shows progress). Every route that
 * searches answers so.
 */
export function indexMissing(missing: IndexMissingError, lexicalBuild: LexicalBuild, log: (line: string) => void) {
  const { retriever, command } = missing;
  if (retriever !== 'bm25')
    return httpProblem(409, missing.message, { title: 'Index not built', extra: { retriever, command } });
  if (!lexicalBuild.building)
    lexicalBuild.start().catch((error: Error) => log(`toolenv: building the bm25 index failed: ${error.message}`));
  return httpProblem(503, 'the bm25 index of this library is being built; retry shortly', {
    title: 'Index building',
    headers: { 'retry-after': String(BUILD_RETRY_AFTER) },
    extra: { retriever },
  });
}

function invalid(detail: string, extra?: Record<string, unknown>) {
  return httpProblem(400, detail, { title: 'Invalid search request', extra });
}
