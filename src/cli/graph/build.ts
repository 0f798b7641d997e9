import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { buildGraph, type BuildPhase } from '../../graph/build.js';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';
import { printStatsTable } from './stats.js';

export function registerGraphBuild(graph: Command): void {
  graph
    .command('build')
    .description('build the dependency graph of a library into graph.db beside its tools.db (schema dataflow, OpenAPI links, resource creation)')
    .option('--library <dir>', 'library directory (its graph.db is replaced only when the build succeeds)', defaultLibraryDir())
    .option('--json', 'print one JSON summary line')
    .action(async (opts: { library: string; json?: boolean }) => {
      const progress = progressBar();
      let report;
      try {
        report = await buildGraph(opts.library, { onProgress: progress.update });
      } finally {
        progress.stop();
      }
      if (opts.json) return printJson(report);
      printLine(`graph        ${report.file}`);
      printLine(`candidates   ${report.candidates} pairs, ${report.skipped_keys} keys skipped as too common`);
      printLine(`time         ${(report.ms / 1000).toFixed(1)} s`);
      printLine();
      printStatsTable(report.stats);
    });
}

/** One bar per phase on stderr, only when stderr is a terminal. */
function progressBar(): { update: (phase: BuildPhase, done: number, total: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{phase} [{bar}] {value}/{total} | {duration_formatted}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let current: BuildPhase | undefined;
  return {
    update: (phase, done, total) => {
      if (phase !== current) {
        if (current !== undefined) bar.stop();
        current = phase;
        bar.start(total, done, { phase: phase.padEnd(5) });
      } else bar.update(done);
    },
    stop: () => {
      if (current !== undefined) bar.stop();
    },
  };
}
