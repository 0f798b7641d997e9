import type { Command } from 'commander';
import type { GraphStats } from '../../graph/stats.js';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';

export function registerGraphStats(graph: Command): void {
  graph
    .command('stats')
    .description('the graph table: tools, tools with a dependency, edges (hard, soft), pairs, degrees, edges per rule')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--json', 'print one JSON object')
    .action(async (opts: { library: string; json?: boolean }) => {
      const { openGraph } = await import('../../graph/store.js');
      const g = openGraph(opts.library);
      try {
        const stats = g.stats();
        const stale = await isStale(opts.library, g.meta('library_built_at'));
        if (stale)
          process.stderr.write(
            `toolenv: the library at ${opts.library} was rebuilt after ` +
              'this graph; run `toolenv graph build` to refresh it\n',
          );
        if (opts.json)
          return printJson({ library: opts.library, built_at: g.meta('built_at') ?? null, stale, ...stats });
        printStatsTable(stats);
      } finally {
        g.close();
      }
    });
}

/** Whether the library's own build is not the one the graph was built from. */
async function isStale(libraryDir: string, builtFrom: string | undefined): Promise<boolean> {
  const [{ LibraryStore }, { libraryBuiltAt }] = await Promise.all([
    import('../../library/store.js'),
    import('../../graph/build.js'),
  ]);
  if (!LibraryStore.exists(libraryDir)) return false;
  const store = LibraryStore.open(libraryDir);
  try {
    return libraryBuiltAt(store) !== (builtFrom ?? '');
  } finally {
    store.close();
  }
}

export function printStatsTable(stats: GraphStats): void {
  const n = (x: number) => x.toLocaleString('en-US');
  const rows: [string, string][] = [
    ['tools (nodes)', n(stats.tools)],
    ['tools with dependency', n(stats.tools_with_dependency)],
    ['directed edges', n(stats.edges)],
    ['  hard', n(stats.hard)],
    ['  soft', n(stats.soft)],
    ['unordered pairs', n(stats.unordered_pairs)],
    ['bidirectional pairs', n(stats.bidirectional_pairs)],
    ['mean out-degree (connected)', stats.mean_out_degree_connected.toFixed(2)],
    [
      'max out-degree',
      `${n(stats.max_out_degree)}${stats.max_out_degree_tool ? `  (${stats.max_out_degree_tool})` : ''}`,
    ],
    ['max in-degree', `${n(stats.max_in_degree)}${stats.max_in_degree_tool ? `  (${stats.max_in_degree_tool})` : ''}`],
    ['cross-API edges', n(stats.cross_api_edges)],
  ];
  printLine('| statistic | value |');
  printLine('|---|---:|');
  for (const [label, value] of rows) printLine(`| ${label} | ${value} |`);
  printLine();
  printLine('| rule | hard | soft |');
  printLine('|---|---:|---:|');
  for (const [rule, counts] of Object.entries(stats.by_rule).sort(
    (a, b) => b[1].hard + b[1].soft - (a[1].hard + a[1].soft),
  )) {
    printLine(`| ${rule} | ${n(counts.hard)} | ${n(counts.soft)} |`);
  }
}
