import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryStore } from '../library/store.js';
import { packageRoot } from '../paths.js';
import { freshArguments } from './fresh-arguments.js';
import { lastJsonLine, rssMb, startProcess, type Running } from './processes.js';
import type { RolloutLoadConfig, RolloutLoadResult } from './rollout-load.js';
import { pickTarget } from './run.js';

export interface RolloutBenchOptions {
  library: string;
  /** Concurrent episodes of each scale measured: the paper's step is 256 prompts × 8 rollouts. */
  episodes: number[];
  /**
   * Most keep-alive connections the load generator opens: a scale past it spreads its episodes over them (each
   * connection interleaving its episodes' turns), as a trainer's client pool does.
   */
  connections: number;
  /** Steps (or call turns) per episode. */
  steps: number;
  /** Tool calls per step: a ParaAct layer of up to three parallel calls. */
  actionsPerStep: number;
  durationSeconds: number;
  /** Rounds of every measurement, taken in turn; each keeps its best. */
  rounds: number;
  log: (line: string) => void;
}

/** The workloads measured at each scale, side by side. */
export const WORKLOADS = ['call', 'call_fresh', 'step', 'step_fresh', 'turns', 'turns_fresh'] as const;
export type Workload = (typeof WORKLOADS)[number];

export interface WorkloadResult {
  /** Actions answered per second: plain calls, or the calls and searches inside episodes. */
  actions_per_s: number;
  /** Tool calls answered per second (the search turns left out). */
  calls_per_s: number;
  requests_per_s: number;
  /** Latency of one step: a plain call, a JSON step, or a call turn. */
  step_p50_ms: number;
  step_p99_ms: number;
  episodes: number;
  failures: number;
  failure_samples: string[];
  sources: Record<string, number>;
  generator_us_per_request: number;
  /** The server's CPU time per action, microseconds, every thread. */
  server_us_per_action?: number;
  /** Of it, the event loop's (the main thread's; synthesis runs beside it). */
  server_loop_us_per_action?: number;
  live_episodes: number;
  rss_mb?: number;
  heap_mb?: number;
  /** Share of the window the server spent in garbage-collection pauses. */
  gc_share?: number;
  sweeps: number;
  sweep_seconds: number;
  sweep_last: { ms: number; visited: number };
}

export interface RolloutScale {
  episodes: number;
  workloads: Record<Workload, WorkloadResult>;
  /** Episode actions per second over plain cached calls per second at the same concurrency (target ≥ 0.5). */
  step_vs_call: number;
  turns_vs_call: number;
  /** Median step latency with fresh arguments over cached ones (target ≤ 2). */
  fresh_step_vs_cached: number;
  fresh_turn_vs_cached: number;
  /**
   * The server's RSS with every episode of the scale live, after its steps (the larger of the JSON-step and text-turn
   * runs).
   */
  rss_live_mb: number;
  /** (RSS with the episodes live − idle RSS) / episodes: what one live episode costs the server, KiB. */
  rss_per_episode_kib: number;
  /** The V8 heap in use with the episodes live, at most over the workloads, MB. */
  heap_live_mb: number;
  connections: number;
  /** Actions per second of every round, per workload (the best is reported). */
  rounds_actions_per_s: Record<Workload, number[]>;
  /** Median step latency of every round, per workload, ms: fresh over cached per round, not only of best rounds. */
  rounds_step_p50_ms: Record<Workload, number[]>;
  /**
   * The expiry sweeps the server ran while this scale was measured (every round and workload; the interval is the
   * TTL within 1–60 s, so a short scale may see none): how many, their mean time, and the one that visited the most
   * live episodes.
   */
  sweeps: { count: number; mean_ms: number; largest: { ms: number; visited: number } };
}

export interface RolloutReport {
  tool: string;
  library_tools: number;
  steps: number;
  actions_per_step: number;
  duration_s: number;
  rounds: number;
  /** Server RSS before any load. */
  idle_rss_mb: number;
  scales: RolloutScale[];
  /** The scale whose measurement failed (the larger ones were not tried): the scales before it stand. */
  failed?: { episodes: number; workload: Workload; error: string; server_exited: boolean };
}

export const SERVE_READY = /"url":"(http:\/\/[^"]+)"/;

/**
 * `toolenv bench --rollouts`: one server (the library, a fresh cache, no injected errors, the synthesizer as the
 * responder) and, in a process of its own, a load generator per measurement. At each scale, N connections drive N
 * concurrent episodes, each created, stepped `steps` times with `actionsPerStep` calls and deleted, over JSON steps
 * and over text turns (one search turn first), with cached and with fresh arguments; beside them the same call sent
 * plainly over N connections. Rounds alternate the workloads; each keeps its best.
 */
export async function runRolloutBench(options: RolloutBenchOptions): Promise<RolloutReport> {
  const { log } = options;
  const work = mkdtempSync(join(tmpdir(), 'toolenv-rollouts-'));
  let server: Running | undefined;
  try {
    const store = LibraryStore.open(options.library);
    const libraryTools = store.count();
    const target = pickTarget(store);
    store.close();
    const tool = target.tool.id;
    const most = Math.max(...options.episodes);
    log(`library ${options.library}: ${libraryTools} tools; target tool ${tool}`);
    server = await startRolloutServer(options.library, join(work, 'cache.db'), 2 * most);
    const url = SERVE_READY.exec(server.ready)![1]!;
    const pid = server.child.pid!;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleRss = rssMb(pid);
    await warmUp(url, tool, target.args, target.tool.name);

    let runs = 0;
    const measure = async (workload: Workload, episodes: number): Promise<WorkloadResult> => {
      const mode = workload.startsWith('call') ? 'call' : workload.startsWith('step') ? 'step' : 'turns';
      const config: RolloutLoadConfig = {
        url,
        mode,
        tool,
        args: target.args,
        fresh: workload.endsWith('_fresh'),
        // Run n counts its fresh arguments from n × 2^32: no run meets another's, nor the warm-up's.
        freshOffset: ++runs * 2 ** 32,
        query: target.tool.name,
        connections: Math.min(episodes, options.connections),
        episodes,
        steps: options.steps,
        actionsPerStep: options.actionsPerStep,
        durationSeconds: options.durationSeconds,
        serverPid: pid,
        rss: mode !== 'call',
      };
      const result = await runLoad(config);
      if (result.failures > 0)
        log(`${workload} at ${episodes}: ${result.failures} unexpected answers, e.g. ${result.failure_samples[0]}`);
      return summarize(result);
    };

    const scales: RolloutScale[] = [];
    let failed: RolloutReport['failed'];
    for (const episodes of options.episodes) {
      const rounds = {} as Record<Workload, WorkloadResult[]>;
      try {
        for (let round = 1; round <= options.rounds; round++) {
          for (const workload of WORKLOADS) {
            log(`${episodes} episodes, round ${round} of ${options.rounds}: ${workload}`);
            failed = { episodes, workload, error: '', server_exited: false };
            (rounds[workload] ??= []).push(await measure(workload, episodes));
          }
        }
        failed = undefined;
      } catch (error) {
        // A scale past what the server holds (its heap, the machine's sockets) ends the run, not the report.
        failed = { ...failed!, error: (error as Error).message, server_exited: server.child.exitCode !== null };
        log(`${episodes} episodes failed in ${failed.workload}: ${failed.error}`);
        break;
      }
      const workloads = {} as Record<Workload, WorkloadResult>;
      const perRound = {} as Record<Workload, number[]>;
      const p50PerRound = {} as Record<Workload, number[]>;
      for (const workload of WORKLOADS) {
        workloads[workload] = rounds[workload].reduce((a, b) => (b.actions_per_s > a.actions_per_s ? b : a));
        perRound[workload] = rounds[workload].map((r) => r.actions_per_s);
        p50PerRound[workload] = rounds[workload].map((r) => r.step_p50_ms);
      }
      const call = workloads.call.actions_per_s;
      const rssLive = Math.max(...WORKLOADS.map((w) => workloads[w].rss_mb ?? 0));
      scales.push({
        episodes,
        workloads,
        step_vs_call: ratio(workloads.step.actions_per_s, call),
        turns_vs_call: ratio(workloads.turns.actions_per_s, call),
        fresh_step_vs_cached: ratio(workloads.step_fresh.step_p50_ms, workloads.step.step_p50_ms),
        fresh_turn_vs_cached: ratio(workloads.turns_fresh.step_p50_ms, workloads.turns.step_p50_ms),
        rss_live_mb: rssLive,
        rss_per_episode_kib: Math.round((((rssLive - idleRss) * 1024) / episodes) * 10) / 10,
        heap_live_mb: Math.max(...WORKLOADS.map((w) => workloads[w].heap_mb ?? 0)),
        connections: Math.min(episodes, options.connections),
        rounds_actions_per_s: perRound,
        rounds_step_p50_ms: p50PerRound,
        sweeps: sweepsOf(WORKLOADS.flatMap((w) => rounds[w])),
      });
      log(
        `${episodes} episodes: RSS ${rssLive} MB live (${scales.at(-1)!.rss_per_episode_kib} KiB an episode), ` +
          `turns ${scales.at(-1)!.turns_vs_call} × the plain call`,
      );
    }
    return {
      tool,
      library_tools: libraryTools,
      steps: options.steps,
      actions_per_step: options.actionsPerStep,
      duration_s: options.durationSeconds,
      rounds: options.rounds,
      idle_rss_mb: idleRss,
      scales,
      ...(failed ? { failed } : {}),
    };
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * `toolenv serve` as the rollout benches load it: a fresh cache, no injected errors, the synthesizer as the responder.
 */
export function startRolloutServer(library: string, cache: string, maxEpisodes: number): Promise<Running> {
  return startProcess(
    process.execPath,
    [
      join(packageRoot, 'bin/toolenv'),
      'serve',
      '--port',
      '0',
      '--library',
      library,
      '--cache',
      cache,
      '--error-rate',
      '0',
      '--responder',
      'synth',
      '--max-episodes',
      String(maxEpisodes),
      // The bench measures what the episodes cost, not the admission budget that refuses them.
      '--episode-memory',
      String(2 ** 20),
      '--json',
    ],
    SERVE_READY,
  );
}

/**
 * The target answers a cached and a fresh call, and the first search (which loads the retrieval index) is made
 * before anything is measured.
 */
export async function warmUp(url: string, tool: string, args: Record<string, unknown>, query: string): Promise<void> {
  const call = async (given: Record<string, unknown>) => {
    const response = await fetch(`${url}/v1/tools/${encodeURIComponent(tool)}/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: given }),
    });
    if (response.status !== 200)
      throw new Error(
        `the warm-up call of ${tool} answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    return response.headers.get('x-toolenv-source');
  };
  await call(args);
  const source = await call(freshArguments(args, 1));
  if (source !== 'synth')
    throw new Error(`a fresh-argument call of ${tool} was answered from ${source}, not the synthesizer`);
  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const { id } = (await (await post('/v1/episodes', {})).json()) as { id: string };
  const turn = (await (
    await post(`/v1/episodes/${id}/turns`, { text: `<think>Search.</think>\n<search_tool>${query}</search_tool>` })
  ).json()) as { observation?: { content: string } };
  if (!turn.observation?.content.includes(tool))
    throw new Error(
      `a search for ${JSON.stringify(query)} did not find ${tool}: ${JSON.stringify(turn).slice(0, 300)}`,
    );
  await fetch(`${url}/v1/episodes/${id}`, { method: 'DELETE' });
}

/** Runs the load generator in its own process and reads its result line. */
function runLoad(config: RolloutLoadConfig): Promise<RolloutLoadResult> {
  return lastJsonLine(
    process.execPath,
    [join(packageRoot, 'dist/src/bench/rollout-load.js'), JSON.stringify(config)],
    'the load generator',
  );
}

function summarize(result: RolloutLoadResult): WorkloadResult {
  const sorted = Float64Array.from(result.latencies_ms).sort();
  const at = (q: number) =>
    sorted.length === 0
      ? 0
      : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
  const perSecond = (n: number) => Math.round(n / result.window_s);
  return {
    actions_per_s: perSecond(result.calls + result.searches),
    calls_per_s: perSecond(result.calls),
    requests_per_s: perSecond(result.requests),
    step_p50_ms: at(0.5),
    step_p99_ms: at(0.99),
    episodes: result.episodes,
    failures: result.failures,
    failure_samples: result.failure_samples,
    sources: result.sources,
    generator_us_per_request: result.generator_us_per_request,
    ...(result.server_us_per_action === undefined ? {} : { server_us_per_action: result.server_us_per_action }),
    ...(result.server_loop_us_per_action === undefined
      ? {}
      : { server_loop_us_per_action: result.server_loop_us_per_action }),
    live_episodes: result.live_episodes,
    ...(result.rss_mb === undefined ? {} : { rss_mb: result.rss_mb }),
    ...(result.heap_mb === undefined ? {} : { heap_mb: result.heap_mb }),
    ...(result.gc_share === undefined ? {} : { gc_share: result.gc_share }),
    sweeps: result.sweeps,
    sweep_seconds: result.sweep_seconds,
    sweep_last: result.sweep_last,
  };
}

function sweepsOf(results: readonly WorkloadResult[]): RolloutScale['sweeps'] {
  const count = results.reduce((n, r) => n + r.sweeps, 0);
  const seconds = results.reduce((n, r) => n + r.sweep_seconds, 0);
  const largest = results.reduce((a, r) => (r.sweep_last.visited > a.visited ? r.sweep_last : a), {
    ms: 0,
    visited: 0,
  });
  return { count, mean_ms: count > 0 ? Math.round((seconds / count) * 1e5) / 100 : 0, largest };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
