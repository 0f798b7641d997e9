import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryStore } from '../library/store.js';
import { missingPython, pythonExecutable } from '../python.js';
import { lastJsonLine, rssMb, type Running } from './processes.js';
import { SERVE_READY, startRolloutServer, warmUp } from './rollouts.js';
import { pickTarget } from './run.js';

/**
 * `toolenv bench --client`: ToolEnv's Python client (`AsyncToolEnvClient`, what the TRL and verl glue drive) at
 * trainer scale. One `toolenv serve`, and in a Python process `toolenv.loadtest`: per scale, N episodes created at
 * once, each writing one search turn and then call turns, all N in flight together. Turns per second that fall
 * as N grows mean the client, not the server, is what a trainer waits on.
 */

export interface ClientBenchOptions {
  library: string;
  episodes: number[];
  /** Text turns per episode: one search, then calls. */
  turns: number;
  /** The client's connection pool (and requests in flight); the client's default when undefined. */
  maxConnections?: number;
  log: (line: string) => void;
}

export interface ClientScale {
  episodes: number;
  turns: number;
  create_s: number;
  turns_s: number;
  turns_per_s: number;
  turn_p50_ms: number;
  turn_p99_ms: number;
  rejected_samples: string[];
}

export interface ClientReport {
  tool: string;
  client: string;
  max_connections: number | null;
  scales: ClientScale[];
  /** Turns per second at the largest scale over the smallest: near 1 when the client scales. */
  largest_vs_smallest: number;
  server_rss_mb: number;
}

export async function runClientBench(options: ClientBenchOptions): Promise<ClientReport> {
  const python = pythonExecutable();
  if (!python) throw new Error(missingPython());
  const work = mkdtempSync(join(tmpdir(), 'toolenv-client-'));
  let server: Running | undefined;
  try {
    const store = LibraryStore.open(options.library);
    const target = pickTarget(store);
    store.close();
    const most = Math.max(...options.episodes);
    options.log(
      `target tool ${target.tool.id}; scales ${options.episodes.join(', ')} episodes of ${options.turns} turns`,
    );
    server = await startRolloutServer(options.library, join(work, 'cache.db'), 2 * most);
    const url = SERVE_READY.exec(server.ready)![1]!;
    await warmUp(url, target.tool.id, target.args, target.tool.name);
    const config = {
      url,
      episodes: options.episodes,
      turns: options.turns,
      tool: target.tool.id,
      arguments: target.args,
      query: target.tool.name,
      max_connections: options.maxConnections ?? null,
    };
    const parsed = await lastJsonLine<Omit<ClientReport, 'tool' | 'largest_vs_smallest' | 'server_rss_mb'>>(
      python,
      ['-m', 'toolenv.loadtest', JSON.stringify(config)],
      'toolenv.loadtest',
    );
    const first = parsed.scales[0]!;
    const last = parsed.scales.at(-1)!;
    for (const scale of parsed.scales)
      if (scale.rejected_samples.length > 0)
        options.log(`${scale.episodes} episodes: turns rejected, e.g. ${scale.rejected_samples[0]}`);
    return {
      tool: target.tool.id,
      ...parsed,
      largest_vs_smallest: first.turns_per_s > 0 ? Math.round((last.turns_per_s / first.turns_per_s) * 100) / 100 : 0,
      server_rss_mb: rssMb(server.child.pid!),
    };
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
