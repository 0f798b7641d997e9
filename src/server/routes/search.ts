import { Hono } from 'hono';
import type { SearchRequest } from '../../wire/schema-types.js';
import type { AppContext } from '../context.js';
import { readJsonBody } from '../json-body.js';
import { checkedBody } from '../request-body.js';
import { httpProblem } from '../../http/problem-response.js';
import type { IndexMissingError } from '../../retrieval/searcher.js';
import type { LexicalBuild } from '../index-build.js';
import { json, PROBLEMS, problemDoc, ref, type Operations } from '../openapi-parts.js';

/**
 * `POST /v1/search` `{"query"} | {"queries": […]}, k?, retriever?, category?`: ParaAct's parallel `search_tool`
 * actions in one request. The retrieval module loads on the first search, so `serve` starts without it.
 */
export function searchRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post('/v1/search', async (c) => {
    const body = checkedBody<SearchRequest>('SearchRequest', await readJsonBody(c), 'Invalid search request');
    const single = body.query !== undefined;
    const queries = single ? [body.query!] : body.queries!;
    const { search, SearchError, IndexMissingError, lexicalBuild } = await ctx.retrieval();
    try {
      const results = await search.search(queries, {
        k: body.k,
        retriever: body.retriever,
        category: body.category,
      });
      // An agent chooses among hits by what they do: each carries its tool's description, as episode searches do.
      const described = results.map((hits) =>
        hits.map((hit) => ({ ...hit, description: ctx.store.get(hit.id)?.description ?? '' })),
      );
      if (single) return c.json({ query: queries[0], results: described[0] });
      return c.json({ results: queries.map((query, i) => ({ query, results: described[i] })) });
    } catch (error) {
      if (error instanceof IndexMissingError) throw indexMissing(error, lexicalBuild, ctx.log);
      if (error instanceof SearchError) {
        if (error.status === 404) throw httpProblem(404, error.message, { title: 'Unknown category' });
        if (error.status === 409) throw httpProblem(409, error.message, { title: 'Retriever unavailable' });
        throw invalid(error.message);
      }
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
        '404': problemDoc('A `category` the library does not have (the detail lists those it has).'),
        '409': problemDoc(
          'The dense or hybrid index is not built: the server does not embed the library itself (`command` names ' +
            'the line that does); or the server cannot run the retriever (`dense` without `--embed-model`, vectors ' +
            'of another library).',
        ),
        '503': {
          ...problemDoc('The bm25 index is being built (on first use); retry after `Retry-After` seconds.'),
          headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
        },
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
