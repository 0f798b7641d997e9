import type { Command } from 'commander';
import { UsageError } from '../../terminal/errors.js';
import { intFlag, printJson, printLine } from '../output.js';
import { embedOptions, retrieverFlag, type LibraryFlags } from './options.js';

interface BenchFlags extends LibraryFlags {
  count: string;
  retriever: string;
  embedSample?: string;
  json?: boolean;
}

export function registerSearchBench(search: Command): void {
  search
    .command('bench')
    .description(
      'latency of a retriever (--retriever, BM25 by default; k=3): p50/p95 of one query, p95 of a batch of 8, CPU per query ' +
        'and per batch, index size, load time and memory; with --embed-sample, what the dense index build costs per tool',
    )
    .option('--count <n>', 'queries to time', '400')
    .option(
      '--embed-sample <n>',
      'embed about n passages of the library (every (tools/n)-th tool) with --embed-model and report CPU and wall ' +
        'time per passage and the whole library projected, instead of timing searches',
    )
    .configureHelp({ showGlobalOptions: true })
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<BenchFlags>();
      const embed = embedOptions(opts);
      const { asUsage } = await import('./open.js');
      const report = await asUsage(async () => {
        if (opts.embedSample !== undefined) {
          if (!embed.embedModel) throw new UsageError('--embed-sample needs --embed-model DIR');
          const sample = intFlag('--embed-sample', opts.embedSample, { min: 1, max: 1_000_000 });
          const { measureEmbedding } = await import('../../retrieval/embed-bench.js');
          return measureEmbedding(opts.library, embed.embedModel, {
            sample,
            dtype: embed.embedDtype,
            pooling: embed.pooling,
            queryPrefix: embed.queryPrefix,
          });
        }
        const retriever = retrieverFlag(opts.retriever);
        if (retriever !== 'bm25' && retriever !== 'dense' && retriever !== 'hybrid')
          throw new UsageError(`search bench times bm25, dense or hybrid, not ${retriever}`);
        const { measureSearch } = await import('../../retrieval/bench.js');
        return measureSearch(opts.library, {
          queries: intFlag('--count', opts.count, { min: 10, max: 100_000 }),
          retriever,
          ...embed,
        });
      });
      if (opts.json) return printJson(report);
      for (const [key, value] of Object.entries(report)) printLine(`${key.padEnd(22)}${value}`);
    });
}
