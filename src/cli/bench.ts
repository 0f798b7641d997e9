import type { Command } from 'commander';
import { defaultLibraryDir } from '../paths.js';
import { intFlag, printJson, printLine } from './output.js';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('benchmark: bare hono ceiling, cached tool calls, the REST surface and Stoplight Prism, in one run; startup and memory')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--duration <seconds>', 'seconds of load per target', '5')
    .option('--connections <n>', 'concurrent connections', '32')
    .option('--no-prism', 'skip Stoplight Prism')
    .option('--json', 'print the report as one JSON object (last stdout line)')
    .action(async (opts: { library: string; duration: string; connections: string; prism: boolean; json?: boolean }) => {
      // Loaded here: the load generator is a large import no other command needs.
      const { runBench } = await import('../bench/run.js');
      const report = await runBench({
        library: opts.library,
        durationSeconds: intFlag('--duration', opts.duration, { min: 1, max: 600 }),
        connections: intFlag('--connections', opts.connections, { min: 1, max: 1000 }),
        prism: opts.prism,
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
        ['tool call (cached)', `${report.call_rps} req/s (${report.call_vs_ceiling} × ceiling)`],
        ['REST surface (cached)', `${report.rest_rps} req/s`],
        ['search p95 (k=3)', `${report.search_p95_ms} ms (batch of 8: ${report.search_batch8_ms} ms)`],
        ['Stoplight Prism', report.prism_rps === null ? 'skipped' : `${report.prism_rps} req/s (call is ${report.call_vs_prism} × Prism)`],
      ];
      for (const [label, value] of rows) printLine(`${label.padEnd(24)}${value}`);
    });
}
