import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryStore } from '../library/store.js';
import { toHttpRequest, type HttpRequestShape } from '../library/http-request.js';
import type { Tool } from '../library/tool.js';
import { synthesize } from '../simulator/synth/index.js';
import { packageRoot } from '../paths.js';
import { measureSearch } from '../retrieval/bench.js';
import type { ModelBenchResult } from '../simulator/llama/bench.js';
import { load, type LoadResult } from './load.js';
import { freePort } from '../server/free-port.js';
import { startProcess, treeRssMb, type Running } from './processes.js';

export interface BenchOptions {
  library: string;
  durationSeconds: number;
  connections: number;
  prism: boolean;
  /** Also build the default library into a temporary directory (a minute or more). */
  build: boolean;
  /** Also measure model-backed calls with this GGUF. */
  model?: string;
  gpu: 'auto' | 'cuda' | 'vulkan' | 'cpu';
  /** Above 1, the server and the ceiling are also measured with this many processes each (`serve --workers`). */
  workers: number;
  /** Rounds of the ceiling and call measurements, taken in turn; each keeps its best. */
  rounds: number;
  log: (line: string) => void;
}

/** The same measurements with N processes each (`serve --workers N` against a ceiling of N processes). */
export interface ClusterReport {
  workers: number;
  startup_ms: number;
  rss_mb: number;
  ceiling_rps: number;
  call_rps: number;
  call_vs_ceiling: number;
}

export interface BenchReport {
  library_tools: number;
  open_ms: number;
  startup_ms: number;
  rss_mb: number;
  rss_after_load_mb: number;
  /** The bare endpoint answering GET: the ceiling. */
  ceiling_rps: number;
  /**
   * The bare endpoint answering a POST with the call's own JSON body: what reading a body costs before any simulation.
   */
  ceiling_post_rps: number;
  call_rps: number;
  rest_rps: number;
  prism_rps: number | null;
  search_p95_ms: number;
  search_batch8_ms: number;
  call_vs_ceiling: number;
  call_vs_post_ceiling: number;
  call_vs_prism: number | null;
  tool: string;
  connections: number;
  duration_s: number;
  rounds: number;
  /** Requests per second of every round of the alternated measurements (the best of each is reported). */
  rounds_rps: Record<string, number[]>;
  cluster?: ClusterReport;
  details: Record<string, LoadResult>;
  build?: { duration_ms: number; cpu_ms: number; peak_rss_mb: number; tools: number };
  model?: ModelBenchResult;
}

const SERVE_READY = /"url":"(http:\/\/[^"]+)"/;

/** One bench run: every server in its own process, the load generator in this one, all measured back to back. */
export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { log } = options;
  const work = mkdtempSync(join(tmpdir(), 'toolenv-bench-'));
  const running: Running[] = [];
  try {
    const started = performance.now();
    const store = LibraryStore.open(options.library);
    const first = store.list({ limit: 1 }).tools[0];
    if (first) store.get(first.id);
    const open_ms = round(performance.now() - started);
    const libraryTools = store.count();
    const target = pickTarget(store);
    store.close();
    log(
      `library ${options.library}: ${libraryTools} tools, opened in ${open_ms} ms; target tool ${target.tool.id} ` +
        `(${target.request.method} ${target.request.url})`,
    );
    const run = (
      url: string,
      init: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
    ) => load({ url, connections: options.connections, durationSeconds: options.durationSeconds, ...init });

    const callBody = JSON.stringify({ arguments: target.args });
    const jsonHeaders = { 'content-type': 'application/json' };
    const post = { method: 'POST' as const, body: callBody, headers: jsonHeaders };
    const cacheFile = join(work, 'cache.db');

    const startCeiling = async (workers: number) => {
      log(`ceiling: bare hono endpoint, ${plural(workers, 'process', 'processes')}`);
      const server = await startProcess(
        process.execPath,
        [join(packageRoot, 'dist/src/bench/ceiling-server.js'), String(workers)],
        SERVE_READY,
      );
      running.push(server);
      return { server, url: SERVE_READY.exec(server.ready)![1]! };
    };
    // Started, settled for a second (idle memory), and warmed up with the one call every round repeats.
    const startToolenv = async (workers: number) => {
      log(`toolenv: serve with the library, ${plural(workers, 'worker', 'workers')}`);
      const server = await startProcess(
        process.execPath,
        [
          join(packageRoot, 'bin/toolenv'),
          'serve',
          '--port',
          '0',
          '--library',
          options.library,
          '--cache',
          cacheFile,
          '--error-rate',
          '0',
          '--workers',
          String(workers),
          '--json',
        ],
        SERVE_READY,
      );
      running.push(server);
      const base = SERVE_READY.exec(server.ready)![1]!;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const rss = treeRssMb(server.child.pid!);
      const callUrl = `${base}/v1/tools/${encodeURIComponent(target.tool.id)}/call`;
      const warm = await fetch(callUrl, post);
      if (warm.status >= 400) throw new Error(`warm-up call answered ${warm.status}: ${await warm.text()}`);
      return { server, base, callUrl, rss, startupMs: round(server.readyMs) };
    };
    // The ceiling and the server both listen while they are measured, in turn, round after round; each keeps its best
    // round, so that a noisy minute on a shared machine does not decide a ratio.
    const bestOf = async <K extends string>(targets: Record<K, () => Promise<LoadResult>>) => {
      const rounds = {} as Record<K, LoadResult[]>;
      for (let i = 1; i <= options.rounds; i++) {
        for (const [name, measure] of Object.entries(targets) as [K, () => Promise<LoadResult>][]) {
          log(`round ${i} of ${options.rounds}: ${name}`);
          (rounds[name] ??= []).push(await measure());
        }
      }
      const best = {} as Record<K, LoadResult>;
      const rps = {} as Record<K, number[]>;
      for (const name in rounds) {
        best[name] = rounds[name].reduce((a, b) => (b.rps > a.rps ? b : a));
        rps[name] = rounds[name].map((result) => result.rps);
      }
      return { best, rps };
    };

    const bare = await startCeiling(1);
    const toolenv = await startToolenv(1);
    const measured = await bestOf({
      ceiling: () => run(bare.url),
      ceiling_post: () => run(bare.url, post),
      call: () => run(toolenv.callUrl, post),
    });
    await bare.server.stop();
    const { ceiling, ceiling_post: ceilingPost, call } = measured.best;
    const restUrl = `${toolenv.base}/apis/${target.apiId}${target.request.url}`;
    await fetch(restUrl, { headers: target.request.headers });
    const rest = await run(restUrl, { headers: target.request.headers });
    const document = await (await fetch(`${toolenv.base}/apis/${target.apiId}/openapi.json`)).text();
    const rssAfterLoad = treeRssMb(toolenv.server.child.pid!);
    await toolenv.server.stop();

    let cluster: ClusterReport | undefined;
    let clusterDetails: Record<string, LoadResult> = {};
    let clusterRounds: Record<string, number[]> = {};
    if (options.workers > 1) {
      const bareCluster = await startCeiling(options.workers);
      const toolenvCluster = await startToolenv(options.workers);
      const { best, rps } = await bestOf({
        ceiling_cluster: () => run(bareCluster.url),
        call_cluster: () => run(toolenvCluster.callUrl, post),
      });
      await Promise.all([bareCluster.server.stop(), toolenvCluster.server.stop()]);
      cluster = {
        workers: options.workers,
        startup_ms: toolenvCluster.startupMs,
        rss_mb: toolenvCluster.rss,
        ceiling_rps: best.ceiling_cluster.rps,
        call_rps: best.call_cluster.rps,
        call_vs_ceiling: ratio(best.call_cluster.rps, best.ceiling_cluster.rps),
      };
      clusterDetails = best;
      clusterRounds = rps;
    }

    let prism: LoadResult | null = null;
    if (options.prism) {
      log('prism: mocking the same API document');
      const documentFile = join(work, 'openapi.json');
      writeFileSync(documentFile, JSON.stringify(withoutSecurity(JSON.parse(document))));
      const port = await freePort();
      const prismServer = await startProcess(
        process.execPath,
        [
          join(packageRoot, 'node_modules/@stoplight/prism-cli/dist/index.js'),
          'mock',
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          documentFile,
        ],
        /Prism is listening/,
      );
      running.push(prismServer);
      const prismUrl = `http://127.0.0.1:${port}${target.request.url}`;
      const probe = await fetch(prismUrl, { headers: target.request.headers });
      if (probe.status >= 400)
        log(`prism answered ${probe.status} to ${target.request.url}: ${(await probe.text()).slice(0, 200)}`);
      prism = await run(prismUrl, { headers: target.request.headers });
      await prismServer.stop();
    }

    log('search: BM25 at k=3 over the library');
    const search = await measureSearch(options.library);

    let build: BenchReport['build'];
    if (options.build) {
      log('library build: the default library into a temporary directory');
      const builder = await startProcess(
        process.execPath,
        [join(packageRoot, 'bin/toolenv'), 'library', 'build', '--library', join(work, 'library'), '--json'],
        /^\{.*"duration_ms".*\}$/m,
        { timeoutMs: 900_000 },
      );
      const summary = JSON.parse(builder.ready) as {
        tools: number;
        duration_ms: number;
        cpu_ms: number;
        peak_rss_mb: number;
      };
      await builder.stop();
      build = {
        duration_ms: summary.duration_ms,
        cpu_ms: summary.cpu_ms,
        peak_rss_mb: summary.peak_rss_mb,
        tools: summary.tools,
      };
    }

    let model: ModelBenchResult | undefined;
    if (options.model) {
      log(`model: ${options.model} at parallel 1, 4, 8`);
      // Loaded only here: node-llama-cpp is a large import that the other measurements must not pay for.
      const { benchModel } = await import('../simulator/llama/bench.js');
      model = await benchModel({ model: options.model, parallel: [1, 4, 8], gpu: options.gpu });
    }

    const details: Record<string, LoadResult> = {
      ceiling,
      ceiling_post: ceilingPost,
      call,
      rest,
      ...clusterDetails,
      ...(prism ? { prism } : {}),
    };
    return {
      library_tools: libraryTools,
      open_ms,
      startup_ms: toolenv.startupMs,
      rss_mb: toolenv.rss,
      rss_after_load_mb: rssAfterLoad,
      ceiling_rps: ceiling.rps,
      ceiling_post_rps: ceilingPost.rps,
      call_rps: call.rps,
      rest_rps: rest.rps,
      prism_rps: prism?.rps ?? null,
      search_p95_ms: search.search_p95_ms,
      search_batch8_ms: search.batch8_ms,
      call_vs_ceiling: ratio(call.rps, ceiling.rps),
      call_vs_post_ceiling: ratio(call.rps, ceilingPost.rps),
      call_vs_prism: prism ? ratio(call.rps, prism.rps) : null,
      tool: target.tool.id,
      connections: options.connections,
      duration_s: options.durationSeconds,
      rounds: options.rounds,
      rounds_rps: { ...measured.rps, ...clusterRounds },
      ...(cluster ? { cluster } : {}),
      details,
      ...(build ? { build } : {}),
      ...(model ? { model } : {}),
    };
  } finally {
    await Promise.all(running.map((r) => r.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

export interface Target {
  tool: Tool;
  apiId: string;
  args: Record<string, unknown>;
  request: HttpRequestShape;
}

/**
 * The first GET tool in library order with a path parameter and a response schema: a typical read, routed by template.
 */
export function pickTarget(store: LibraryStore): Target {
  for (const tool of store.iterate()) {
    if (tool.origin.format !== 'openapi' || tool.origin.method !== 'get' || !tool.response_schema) continue;
    if (!Object.values(tool.bindings ?? {}).some((b) => b.in === 'path')) continue;
    const args = synthesize({ ...tool, response_schema: tool.parameters, response_status: 200 }, {}, 1).body as Record<
      string,
      unknown
    >;
    const request = toHttpRequest(tool, args);
    if (!request || /[{}]/.test(request.url)) continue;
    return { tool, apiId: tool.origin.api_id, args, request };
  }
  throw new Error('the library has no GET tool with a path parameter and a response schema to benchmark');
}

/**
 * The document without security requirements: ToolEnv's simulated calls take no credentials (auth failures are
 * injected), so Prism is asked to mock the same calls without them rather than answer every one 401.
 */
function withoutSecurity(document: { security?: unknown; paths?: Record<string, Record<string, unknown>> }) {
  delete document.security;
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item))
      if (operation && typeof operation === 'object') delete (operation as { security?: unknown }).security;
  }
  return document;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const round = (ms: number) => Math.round(ms * 10) / 10;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
