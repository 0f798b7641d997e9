import type { Command } from 'commander';
import { defaultLibraryDir } from '../paths.js';
import { intFlag, printJson, printLine, UsageError } from './output.js';
import { workersFlag } from './workers.js';

interface BenchFlags {
  library: string;
  duration: string;
  connections: string;
  prism: boolean;
  build?: boolean;
  model?: string;
  gpu: string;
  workers: string;
  rounds: string;
  rollouts?: boolean;
  episodes: string;
  steps: string;
  json?: boolean;
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('benchmark: bare hono ceiling, cached tool calls, the REST surface and Stoplight Prism, in one run; startup and memory; --rollouts: actions inside concurrent episodes')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--duration <seconds>', 'seconds of load per target', '5')
    .option('--connections <n>', 'concurrent connections', '32')
    .option('--rounds <n>', 'rounds of the ceiling and call measurements, taken in turn; the best of each is reported', '3')
    .option('--no-prism', 'skip Stoplight Prism')
    .option('--build', 'also build the default library into a temporary directory and report build time and peak memory')
    .option('--model <file>', 'also measure model-backed calls with this GGUF at --parallel 1, 4 and 8 (e.g. `toolenv model tiny`)')
    .option('--gpu <kind>', 'compute back-end for --model: auto, cuda, vulkan, cpu', 'auto')
    .option('--workers <n>', 'also measure the server and the ceiling with this many processes each (serve --workers), or auto (one per core)', '1')
    .option('--rollouts', 'instead: episodes at rollout scale (JSON steps and text turns, cached and fresh arguments) beside the plain cached call')
    .option('--episodes <list>', 'with --rollouts: concurrent episodes of each scale, comma-separated', '256,2048')
    .option('--steps <n>', 'with --rollouts: steps (call turns) per episode, each of three calls', '8')
    .option('--json', 'print the report as one JSON object (last stdout line)')
    .action(async (opts: BenchFlags) => {
      if (opts.rollouts) return rollouts(opts);
      if (!['auto', 'cuda', 'vulkan', 'cpu'].includes(opts.gpu)) throw new UsageError(`--gpu must be auto, cuda, vulkan or cpu, got ${JSON.stringify(opts.gpu)}`);
      // Loaded here: the load generator is a large import no other command needs.
      const { runBench } = await import('../bench/run.js');
      const report = await runBench({
        library: opts.library,
        durationSeconds: intFlag('--duration', opts.duration, { min: 1, max: 600 }),
        connections: intFlag('--connections', opts.connections, { min: 1, max: 1000 }),
        prism: opts.prism,
        build: opts.build ?? false,
        model: opts.model,
        gpu: opts.gpu as 'auto' | 'cuda' | 'vulkan' | 'cpu',
        workers: workersFlag(opts.workers),
        rounds: intFlag('--rounds', opts.rounds, { min: 1, max: 20 }),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      if (opts.json) return printJson(report);
      const rows: [string, string][] = [
        ['library tools', String(report.library_tools)],
        ['library open', `${report.open_ms} ms`],
        ['server startup', `${report.startup_ms} ms`],
        ['idle RSS', `${report.rss_mb} MB`],
        ['RSS after load', `${report.rss_after_load_mb} MB`],
        ['ceiling (bare hono)', `${report.ceiling_rps} req/s`],
        ['ceiling, POST with body', `${report.ceiling_post_rps} req/s`],
        ['tool call (cached)', `${report.call_rps} req/s (${report.call_vs_ceiling} × ceiling, ${report.call_vs_post_ceiling} × POST ceiling)`],
        ...(report.cluster
          ? ([
              [`ceiling, ${report.cluster.workers} processes`, `${report.cluster.ceiling_rps} req/s`],
              [`tool call, ${report.cluster.workers} workers`, `${report.cluster.call_rps} req/s (${report.cluster.call_vs_ceiling} × ceiling; startup ${report.cluster.startup_ms} ms, RSS ${report.cluster.rss_mb} MB)`],
            ] as [string, string][])
          : []),
        ['REST surface (cached)', `${report.rest_rps} req/s`],
        ['search p95 (k=3)', `${report.search_p95_ms} ms (batch of 8: ${report.search_batch8_ms} ms)`],
        ['Stoplight Prism', report.prism_rps === null ? 'skipped' : `${report.prism_rps} req/s (call is ${report.call_vs_prism} × Prism)`],
      ];
      if (report.build) rows.push(['library build', `${(report.build.duration_ms / 1000).toFixed(1)} s (CPU ${(report.build.cpu_ms / 1000).toFixed(1)} s), peak RSS ${report.build.peak_rss_mb} MB`]);
      for (const row of report.model?.rows ?? []) {
        rows.push([`model, parallel ${row.parallel}`, `${row.calls_per_s} calls/s, p50 ${row.p50_ms} ms, p95 ${row.p95_ms} ms, ${row.tokens_per_s} tokens/s`]);
      }
      for (const [label, value] of rows) printLine(`${label.padEnd(24)}${value}`);
    });
}

/** `bench --rollouts`: the rollout bench and its table. */
async function rollouts(opts: BenchFlags): Promise<void> {
  const episodes = opts.episodes.split(',').map((part) => intFlag('--episodes', part, { min: 1, max: 10_000 }));
  const { runRolloutBench } = await import('../bench/rollouts.js');
  const report = await runRolloutBench({
    library: opts.library,
    episodes,
    steps: intFlag('--steps', opts.steps, { min: 1, max: 100 }),
    actionsPerStep: 3,
    durationSeconds: intFlag('--duration', opts.duration, { min: 1, max: 600 }),
    rounds: intFlag('--rounds', opts.rounds, { min: 1, max: 20 }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (opts.json) return printJson(report);
  printLine(`tool ${report.tool}; ${report.steps} steps of ${report.actions_per_step} calls per episode; idle RSS ${report.idle_rss_mb} MB`);
  for (const scale of report.scales) {
    printLine();
    printLine(`${scale.episodes} concurrent episodes: steps ${scale.step_vs_call} × the plain call, turns ${scale.turns_vs_call} ×; fresh/cached step latency ${scale.fresh_step_vs_cached} (steps), ${scale.fresh_turn_vs_cached} (turns); RSS ${scale.rss_live_mb} MB live`);
    printLine(`${'workload'.padEnd(14)}${'actions/s'.padStart(11)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'server µs/action'.padStart(18)}`);
    for (const [name, row] of Object.entries(scale.workloads)) {
      printLine(`${name.padEnd(14)}${String(row.actions_per_s).padStart(11)}${String(row.step_p50_ms).padStart(10)}${String(row.step_p99_ms).padStart(10)}${String(row.server_us_per_action ?? '').padStart(18)}`);
    }
  }
}
