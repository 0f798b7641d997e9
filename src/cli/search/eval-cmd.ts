import type { Command } from 'commander';
import { EVAL_RETRIEVERS, RETRIEVERS, type EvalRetriever, type RetrieverName } from '../../retrieval/retrievers.js';
import { intFlag, printJson, printLine } from '../output.js';
import { UsageError } from '../../terminal/errors.js';
import { embedOptions, type LibraryFlags } from './options.js';

export function registerEval(search: Command): void {
  search
    .command('eval')
    .description(
      'retrieval benchmark built from the library (paraphrased, held-out-description and two-tool queries): ' +
        'Recall@k, NDCG@k, MRR per retriever',
    )
    .option(
      '--retrievers <list>',
      `comma-separated, of ${EVAL_RETRIEVERS.join(', ')} (default: bm25; with --embed-model bm25,dense,hybrid-dense; ` +
        'use and hybrid build USE vectors, an hour or more for a full library)',
    )
    .option('--size <n>', 'queries per set', '200')
    .option('--seed <n>', 'seed of the query sample', '1')
    .option(
      '--tasks <file>',
      'score the queries of a task file instead (ToolBench, BFCL, API-Bank, MCP or ToolEnv format) against their ' +
        "reference tools, mapped as `toolenv eval` maps them, through the library's index files; retrievers of " +
        RETRIEVERS.join(', '),
    )
    .configureHelp({ showGlobalOptions: true })
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<
        LibraryFlags & { retrievers?: string; size: string; seed: string; tasks?: string; json?: boolean }
      >();
      const retrievers = opts.retrievers?.split(',').map((r) => r.trim());
      if (opts.tasks !== undefined) return evalTasks(opts, opts.tasks, retrievers);
      for (const r of retrievers ?? []) {
        if (!(EVAL_RETRIEVERS as readonly string[]).includes(r))
          throw new UsageError(
            `--retrievers: unknown retriever ${JSON.stringify(r)}; use ${EVAL_RETRIEVERS.join(', ')}`,
          );
      }
      if (retrievers?.some((r) => r === 'dense' || r === 'hybrid-dense') && !opts.embedModel)
        throw new UsageError('--retrievers dense and hybrid-dense need --embed-model DIR');
      const [{ evaluate }, { asUsage }, { stagedProgress }] = await Promise.all([
        import('../../retrieval/eval.js'),
        import('./open.js'),
        import('../../terminal/progress.js'),
      ]);
      const progress = stagedProgress('tools');
      try {
        const report = await asUsage(() =>
          evaluate(opts.library, {
            retrievers: retrievers as EvalRetriever[] | undefined,
            size: intFlag('--size', opts.size, { min: 1, max: 100_000 }),
            seed: intFlag('--seed', opts.seed, { min: 0 }),
            ...embedOptions(opts),
            onProgress: progress.update,
          }),
        );
        progress.stop();
        if (opts.json) return printJson(report);
        printLine(
          `${report.tools} tools; ${Object.entries(report.queries)
            .map(([set, n]) => `${n} ${set}`)
            .join(', ')} queries (seed ${report.seed})`,
        );
        printLine(
          'retriever       R@1    R@3    R@10   NDCG@3 NDCG@10 MRR@10  | R@3 paraphrase heldout multi | ms/query',
        );
        for (const r of report.results) {
          const o = r.overall;
          const f = (n: number) => n.toFixed(3).padEnd(7);
          printLine(
            `${r.retriever.padEnd(14)}  ` +
              `${f(o.recall_1)}${f(o.recall_3)}${f(o.recall_10)}${f(o.ndcg_3)}${f(o.ndcg_10)}${f(o.mrr_10)}| ` +
              `${f(r.sets.paraphrase.recall_3)}    ` +
              `${f(r.sets.heldout.recall_3)}${f(r.sets.multi.recall_3)}| ${r.ms_per_query}`,
          );
        }
      } finally {
        progress.stop();
      }
    });
}

async function evalTasks(
  opts: LibraryFlags & { json?: boolean },
  file: string,
  names: string[] | undefined,
): Promise<void> {
  for (const r of names ?? []) {
    if (!(RETRIEVERS as readonly string[]).includes(r))
      throw new UsageError(
        `--retrievers with --tasks: unknown retriever ${JSON.stringify(r)}; use ${RETRIEVERS.join(', ')}`,
      );
  }
  const retrievers = (names ?? (opts.embedModel ? ['bm25', 'dense', 'hybrid'] : ['bm25'])) as RetrieverName[];
  const [{ evaluateTaskFile }, { asUsage, openSearch }, { stagedProgress }, { EvalInputError }] = await Promise.all([
    import('./eval-tasks.js'),
    import('./open.js'),
    import('../../terminal/progress.js'),
    import('../../eval/tasks.js'),
  ]);
  const progress = stagedProgress('tools');
  const searcher = openSearch(opts, { onProgress: progress.update });
  try {
    const report = await asUsage(async () => {
      try {
        return await evaluateTaskFile(searcher, file, retrievers);
      } catch (error) {
        if (error instanceof EvalInputError) throw new UsageError(error.message, { cause: error });
        throw error;
      }
    });
    progress.stop();
    if (opts.json) return printJson(report);
    printLine(
      `${report.file} (${report.format}): ${report.scored} of ` +
        `${report.tasks} tasks have a reference tool in the library`,
    );
    printLine('retriever       R@1    R@3    R@10   NDCG@3 NDCG@10 MRR@10  | ms/query');
    const f = (n: number) => n.toFixed(3).padEnd(7);
    for (const r of report.results) {
      const o = r.overall;
      printLine(
        `${r.retriever.padEnd(14)}  ` +
          `${f(o.recall_1)}${f(o.recall_3)}${f(o.recall_10)}${f(o.ndcg_3)}${f(o.ndcg_10)}${f(o.mrr_10)}| ` +
          `${r.ms_per_query}`,
      );
    }
  } finally {
    progress.stop();
    await searcher.close();
  }
}
