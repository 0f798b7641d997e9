import { Hono } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { declaredMethods } from './declared-methods.js';
import type { LibraryStore } from '../library/store.js';
import type { Simulator } from '../simulator/types.js';
import { bearerAuth } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { DEFAULT_BODY_LIMIT } from './defaults.js';
import {
  graphLoader,
  judgeChooser,
  retrievalLoader,
  servedGraph,
  type AppContext,
  type RetrievalLoader,
} from './context.js';
import { HttpMetrics } from './http-metrics.js';
import type { Operations } from './openapi-parts.js';
import { problemResponse } from '../http/problem-response.js';
import { RestCatalog } from './rest/catalog.js';
import type { SecurityMode } from './rest/security.js';
import { apiOperations, apiRoutes } from './routes/apis.js';
import { callOperations, callRoutes, DEFAULT_MAX_BATCH } from './routes/calls.js';
import { healthOperations, healthRoutes } from './routes/health.js';
import { toolOperations, toolRoutes } from './routes/tools.js';
import { searchOperations, searchRoutes } from './routes/search.js';
import { graphOperations, graphRoutes } from './routes/graph.js';
import { episodeOperations, episodeRoutes } from './routes/episodes.js';
import { errorResponse } from './error-response.js';
import type { EpisodeStore } from '../episodes/store.js';
import { GroupStore } from '../episodes/groups.js';
import type { AnswerJudge } from '../rl/judge.js';
import { rewardOperations, rewardRoutes } from './routes/rewards.js';
import { mcpOperations, mcpRoutes } from './routes/mcp.js';
import type { McpSessionOptions } from '../mcp/limits.js';
import type { EpisodeTask } from '../wire/episodes.js';
import { OpenEnv } from './openenv/env.js';
import { openEnvOperations, openEnvRoutes } from './routes/openenv.js';
import { studioOperations, studioRoutes } from './routes/studio.js';
import { libraryOperations, libraryRoutes } from './routes/library.js';

export { DEFAULT_BODY_LIMIT };

export interface AppOptions {
  store: LibraryStore;
  simulator: Simulator;
  /** The simulator's counters (cache, responders, injected errors), served first on /metrics. */
  metrics?: { toPrometheus(): string };
  /** More routes, mounted after the built-in ones (the model's `POST /v1/chat/completions`, the studio's runs). */
  routes?: readonly AppRoutes[];
  /** When set, every route but /healthz needs `Authorization: Bearer KEY`. */
  apiKey?: string;
  /** Largest request body in bytes (default 1 MiB); larger ones are answered 413. */
  bodyLimit?: number;
  /** Most calls in one `POST /v1/calls` (default 100). */
  maxBatch?: number;
  /** The REST surface's check of declared security (default `ignore`). */
  security?: SecurityMode;
  /** The server's episode store; without one the episode routes are not served. */
  episodes?: EpisodeStore;
  /** MCP session limits (`/mcp` is served with the episode routes: every session records into an episode). */
  mcp?: McpSessionOptions;
  /** The tool search loader, when the caller shares it (with the episode store); default one of the app's own. */
  retrieval?: RetrievalLoader;
  /**
   * Tasks an OpenEnv reset without one gets (`tasks[seed mod n]`, else in turn); without them a reset must name its
   * task.
   */
  openenvTasks?: readonly EpisodeTask[] | (() => Promise<readonly EpisodeTask[]>);
  /** The answer judge of R_ans (`serve --judge`); requests may name another. */
  judge?: AnswerJudge;
  /** The synthesis seed the simulator was built with (default 0), reported on /healthz. */
  seed?: number;
  /** Starts every group id (a cluster worker's `w1-`). */
  idPrefix?: string;
  /** Where unexpected errors are logged (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Routes mounted beside the server's own: as they are, or built over the app's context (the studio's runs read its
 * rewards); with the operations they declare, documented on /openapi.json.
 */
export type AppRoutes = BareRoutes | { routes: BareRoutes; operations: Operations };
type BareRoutes = Hono | ((ctx: AppContext) => Hono);

/** The ToolEnv HTTP app: routes only, each delegating to the library store or the simulator. */
export function createApp(options: AppOptions): Hono {
  return honoApp(appContext(options), options);
}

/** What the routes share, built once per server (the node listener's tool-call path shares it too). */
export function appContext(options: AppOptions): AppContext {
  const graph = graphLoader(options.store.dir);
  const rewards = { graph: servedGraph(graph), judge: judgeChooser(options.judge) };
  return {
    store: options.store,
    simulator: options.simulator,
    tools: options.store.count(),
    seed: options.seed ?? 0,
    simulatorMetrics: options.metrics,
    httpMetrics: new HttpMetrics(),
    catalog: new RestCatalog(options.store),
    maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH,
    auth: options.apiKey !== undefined,
    security: options.security ?? 'ignore',
    retrieval: options.retrieval ?? retrievalLoader(options.store.dir),
    episodes: options.episodes,
    groups: options.episodes && new GroupStore(options.episodes, options.idPrefix),
    graph,
    log: options.log ?? defaultLog,
    rewards,
    openenv: options.episodes && new OpenEnv(options.episodes, rewards, options.openenvTasks),
  };
}

/** The hono app over a context. */
export function honoApp(ctx: AppContext, options: AppOptions): Hono {
  const log = options.log ?? defaultLog;
  const app = new Hono();
  app.use('*', ctx.httpMetrics.middleware());
  // Before the key check: the studio's page and assets hold no data (its API calls carry the key like any client's).
  app.route('/', studioRoutes());
  if (options.apiKey !== undefined) app.use('*', bearerAuth(options.apiKey));
  app.use('*', bodyLimit(options.bodyLimit ?? DEFAULT_BODY_LIMIT));
  const extra = (options.routes ?? []).map((routes) => ('operations' in routes ? routes : { routes, operations: {} }));
  // /openapi.json declares the operations of the routes mounted here: the server's own, those mounted beside them
  // (in the order given), the studio's and the APIs'.
  const operations = [
    healthOperations(ctx.auth),
    toolOperations,
    callOperations(ctx.maxBatch),
    searchOperations,
    graphOperations,
    ...(ctx.episodes
      ? [episodeOperations, rewardOperations, mcpOperations, openEnvOperations(ctx.openenv!.needsTask)]
      : []),
    libraryOperations,
    ...extra.map((routes) => routes.operations),
    studioOperations(ctx.auth),
    apiOperations,
  ];
  app.route('/', healthRoutes(ctx, operations));
  app.route('/', toolRoutes(ctx));
  app.route('/', callRoutes(ctx));
  app.route('/', apiRoutes(ctx));
  app.route('/', searchRoutes(ctx));
  app.route('/', graphRoutes(ctx));
  app.route('/', libraryRoutes(ctx));
  if (ctx.episodes) {
    app.route('/', episodeRoutes(ctx.episodes));
    app.route('/', rewardRoutes(ctx.episodes, ctx.groups!, ctx.rewards));
    app.route('/', mcpRoutes(ctx, ctx.episodes, options.mcp));
    app.route('/', openEnvRoutes(ctx, ctx.openenv!));
  }
  for (const { routes } of extra) app.route('/', typeof routes === 'function' ? routes(ctx) : routes);

  // Told apart from a 404 only once no route answered: a middleware would cost every request an extra async hop.
  const allowMethods = methodNotAllowed({
    app,
    onMethodNotAllowed: (c, routed) => {
      const methods = declaredMethods(operations, c.req.path) ?? routed;
      return problemResponse(405, `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`, {
        headers: { allow: methods.join(', ') },
        extra: { allow: methods },
      });
    },
  });
  app.notFound(async (c) => {
    await allowMethods(c, async () => {
      c.res = problemResponse(404, `no route ${c.req.method} ${c.req.path}; GET /openapi.json describes this server`, {
        title: 'Unknown route',
      });
    });
    return c.res;
  });
  app.onError((error, c) => errorResponse(error, `${c.req.method} ${c.req.path}`, log));
  return app;
}

export const defaultLog = (line: string) => process.stderr.write(`${line}\n`);
