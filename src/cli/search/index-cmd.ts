import type { Command } from 'commander';
import { printJson, printLine } from '../output.js';
import { retrieverFlag, type LibraryFlags } from './options.js';

export function registerIndex(search: Command): void {
  search
    .command('index')
    .description(
      'build the search index files beside the library (index/*.idx) ' +
        'for --retriever (bm25 by default); current ones are kept unless --force',
    )
    .option('--force', 'rebuild even when the files are current')
    .configureHelp({ showGlobalOptions: true })
    .action(async (_opts: unknown, command: Command) => {
      // --library, --retriever, --json … belong to `search` and reach here as its options.
      const opts = command.optsWithGlobals<LibraryFlags & { retriever: string; force?: boolean; json?: boolean }>();
      const retriever = retrieverFlag(opts.retriever);
      const [{ asUsage, openSearch }, { stagedProgress }] = await Promise.all([
        import('./open.js'),
        import('../../terminal/progress.js'),
      ]);
      const progress = stagedProgress('tools');
      const searcher = openSearch(opts, { onProgress: progress.update });
      try {
        const reports = await asUsage(() => searcher.index(retriever, { force: opts.force === true }));
        progress.stop();
        if (opts.json) printJson({ retriever, indexes: reports });
        else
          for (const r of reports)
            printLine(
              `${r.retriever}: ${r.built ? 'built' : 'current'} ${r.file} (${r.tools} tools, ` +
                `${(r.bytes / 1e6).toFixed(1)} MB` +
                (r.built ? `, ${r.seconds}s, ${r.cpu_seconds} CPU-s, +${r.rss_mb} MB RSS)` : ')'),
            );
      } finally {
        progress.stop();
        await searcher.close();
      }
    });
}
