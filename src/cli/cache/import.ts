import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportCounts, CacheBackend } from '../../simulator/cache-types.js';
import type { StableBenchIndex, StableBenchReport } from '../../simulator/stablebench.js';
import { defaultCacheFile, defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';
import { UsageError } from '../../terminal/errors.js';

/** What `cache import` reads: an export, a StableToolBench response cache, or ToolBench answer trajectories. */
const FORMATS = ['jsonl', 'stabletoolbench', 'toolbench'] as const;
type Format = (typeof FORMATS)[number];

interface ImportOptions {
  format?: string;
  cache: string;
  library: string;
  replace?: boolean;
  json?: boolean;
}

export function registerCacheImport(cache: Command): void {
  cache
    .command('import')
    .description(
      'import a `cache export` JSON Lines file, a StableToolBench tool_response_cache directory ' +
        '(<Category>/<tool>/<api>.json, matched to library tools of ToolBench origin), or ToolBench answer ' +
        'trajectories (--format toolbench: the observations of their function calls, stored as source real); all in ' +
        'one transaction: bad input stores nothing. In SQLite the transaction holds the write lock: a server writing ' +
        'to the same file waits meanwhile',
    )
    .argument(
      '<path...>',
      'JSON Lines file, StableToolBench cache directory, or (toolbench) answer files and directories of them',
    )
    .option('--format <format>', `${FORMATS.join(', ')} (default: jsonl for a file, stabletoolbench for a directory)`)
    .option(
      '--cache <file|url>',
      'response cache: a SQLite file, or a postgres://user:pass@host/db URL shared by replicas',
      defaultCacheFile(),
    )
    .option(
      '--library <dir>',
      'library whose tools StableToolBench caches and ToolBench trajectories are matched to',
      defaultLibraryDir(),
    )
    .option(
      '--replace',
      'imported entries replace existing ones with the same tool and arguments (default: existing ones are kept)',
    )
    .option('--json', 'print the summary as one JSON object')
    .action(async (paths: string[], opts: ImportOptions) => {
      if (opts.format !== undefined && !FORMATS.includes(opts.format as Format))
        throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(opts.format)}`);
      const isDirectory = paths.map((path) => {
        try {
          return statSync(path).isDirectory();
        } catch {
          throw new UsageError(`cannot read ${path}: no such file or directory`);
        }
      });
      const format = (opts.format as Format | undefined) ?? (isDirectory[0] ? 'stabletoolbench' : 'jsonl');
      if (format === 'toolbench') return importToolbenchAnswers(paths, opts);
      if (paths.length > 1)
        throw new UsageError(
          `--format ${format} imports one ${format === 'jsonl' ? 'file' : 'directory'}, got ${paths.length} paths`,
        );
      if (format === 'stabletoolbench') await importStableBench(paths[0]!, opts);
      else await importJsonLines(paths[0]!, opts);
    });
}

async function importJsonLines(file: string, opts: ImportOptions): Promise<void> {
  const { readExportFile } = await import('../../simulator/cache-jsonl.js');
  const { counts, where } = await withCache(opts.cache, (store) =>
    store.import(readExportFile(file), { replace: opts.replace }),
  );
  if (opts.json) return printJson({ cache: where, from: file, format: 'jsonl', ...counts });
  printLine(`imported ${file} into ${where}: ${describe(counts)}`);
}

async function importStableBench(root: string, opts: ImportOptions): Promise<void> {
  const [{ LibraryStore }, { readStableBench, StableBenchIndex }] = await Promise.all([
    import('../../library/store.js'),
    import('../../simulator/stablebench.js'),
  ]);
  const library = LibraryStore.open(opts.library);
  let index: StableBenchIndex;
  try {
    index = new StableBenchIndex(library.iterate());
  } finally {
    library.close();
  }
  if (index.size === 0)
    throw new UsageError(`${opts.library} has no tools of ToolBench origin to match a StableToolBench cache to`);
  const report: StableBenchReport = {
    files: 0,
    matched_files: 0,
    unmatched: [],
    entries: 0,
    skipped_errors: 0,
    skipped_arguments: [],
  };
  const { counts, where } = await withCache(opts.cache, (store) =>
    store.import(readStableBench(root, index, report), { replace: opts.replace }),
  );
  if (opts.json) return printJson({ cache: where, from: root, format: 'stabletoolbench', ...counts, ...report });
  printLine(`imported ${root} into ${where}: ${describe(counts)}`);
  printLine(
    `files: ${report.files}, matched to library tools: ${report.matched_files}, unmatched: ${report.unmatched.length}`,
  );
  printLine(
    `skipped: ${report.skipped_errors} recorded errors, ${report.skipped_arguments.length} unreadable argument keys`,
  );
  const shown = report.unmatched.slice(0, 20);
  if (shown.length > 0) {
    printLine('unmatched files:');
    for (const file of shown) printLine(`  ${file}`);
    if (report.unmatched.length > shown.length)
      printLine(`  … and ${report.unmatched.length - shown.length} more (--json lists all)`);
  }
}

async function importToolbenchAnswers(paths: string[], opts: ImportOptions): Promise<void> {
  const [{ LibraryStore }, { answerFiles, emptyReport, FunctionIndex, readToolbenchAnswers }, { Rules }] =
    await Promise.all([
      import('../../library/store.js'),
      import('../../simulator/toolbench-answers.js'),
      import('../../simulator/validate.js'),
    ]);
  const library = LibraryStore.open(opts.library);
  try {
    const files = answerFiles(paths);
    if (files.length === 0) throw new UsageError(`no .json answer files under ${paths.join(', ')}`);
    const report = emptyReport();
    const index = new FunctionIndex(library.iterate({ format: 'toolbench' }), (id) => library.has(id));
    const rules = new Rules(library);
    const { counts, where } = await withCache(opts.cache, (store) =>
      store.import(readToolbenchAnswers(files, index, rules, report), { replace: opts.replace }),
    );
    if (opts.json) return printJson({ cache: where, from: paths, format: 'toolbench', ...counts, ...report });
    const { skipped } = report;
    const unknown = Object.entries(skipped.unknown_function).sort(([, a], [, b]) => b - a);
    const unknownCalls = unknown.reduce((sum, [, n]) => sum + n, 0);
    printLine(`imported ${files.length} answer files into ${where}: ${describe(counts)}`);
    printLine(`function calls: ${report.calls}, mapped to library tools: ${report.mapped}`);
    printLine(
      `skipped: ${unknownCalls} to functions no library tool answers to (${unknown.length} names), ` +
        `${skipped.invalid_arguments} with arguments the tool refuses, ${skipped.recorded_errors} recorded errors, ` +
        `${skipped.duplicates} repeated calls; ${skipped.finish} Finish calls are answers, not API calls`,
    );
    const shown = unknown.slice(0, 20);
    if (shown.length > 0) {
      printLine('unknown functions:');
      for (const [name, n] of shown) printLine(`  ${name} (${n})`);
      if (unknown.length > shown.length) printLine(`  … and ${unknown.length - shown.length} more (--json lists all)`);
    }
  } finally {
    library.close();
  }
}

async function withCache(
  location: string,
  run: (store: CacheBackend) => ImportCounts | Promise<ImportCounts>,
): Promise<{ counts: ImportCounts; where: string }> {
  const { openResponseCache } = await import('../../simulator/cache-open.js');
  const store = (await openResponseCache(location))!;
  try {
    return { counts: await run(store), where: store.file };
  } finally {
    await store.close();
  }
}

function describe(counts: ImportCounts): string {
  return `${counts.inserted} new, ${counts.replaced} replaced, ${counts.kept} kept (already cached)`;
}
