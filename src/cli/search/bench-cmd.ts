import type { Command } from 'commander';
import { intFlag, printJson, printLine } from '../output.js';
import type { LibraryFlags } from './options.js';

export function registerSearchBench(search: Command): void {
  search
    .command('bench')
    .description(
      'latency of the default retriever (BM25, k=3): p50/p95 of one query, ' +
        'p95 of a batch of 8, index size, load time and memory',
    )
    .option('--count <n>', 'queries to time', '400')
    .configureHelp({ showGlobalOptions: true })
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<LibraryFlags & { count: string; json?: boolean }>();
      const { measureSearch } = await import('../../retrieval/bench.js');
      const report = await measureSearch(opts.library, {
        queries: intFlag('--count', opts.count, { min: 10, max: 100_000 }),
      });
      if (opts.json) return printJson(report);
      for (const [key, value] of Object.entries(report)) printLine(`${key.padEnd(16)}${value}`);
    });
}
