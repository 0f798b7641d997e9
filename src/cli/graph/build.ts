import type { Command } from 'commander';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';
import { printStatsTable } from './stats.js';

export function registerGraphBuild(graph: Command): void {
  graph
    .command('build')
    .description(
      'build the dependency graph of a library into graph.db beside ' +
        'its tools.db (schema dataflow, OpenAPI links, resource creation)',
    )
    .option(
      '--library <dir>',
      'library directory (its graph.db is replaced only when the build succeeds)',
      defaultLibraryDir(),
    )
    .option('--json', 'print one JSON summary line')
    .action(async (opts: { library: string; json?: boolean }) => {
      const [{ buildGraph }, { stagedProgress }] = await Promise.all([
        import('../../graph/build.js'),
        import('../../terminal/progress.js'),
      ]);
      const progress = stagedProgress('items');
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
