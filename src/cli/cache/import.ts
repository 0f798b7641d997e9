import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportCounts, CacheBackend } from '../../simulator/cache-types.js';
import type { StableBenchIndex, StableBenchReport } from '../../simulator/stablebench.js';
import { defaultCacheFile, defaultLibraryDir } from '../../paths.js';
import { printJson, printLine, UsageError } from '../output.js';

interface ImportOptions {
  cache: string;
  library: string;
  replace?: boolean;
  json?: boolean;
}

export function registerCacheImport(cache: Command): void {
  cache
    .command('import')
    .description(
      'import a `cache export` JSON Lines file, or a StableToolBench tool_response_cache directory (<Category>/<tool>/<api>.json, ' +
        'matched to library tools of ToolBench origin); all in one transaction: bad input stores nothing. ' +
        'In SQLite the transaction holds the write lock: a server writing to the same file waits meanwhile',
    )
    .argument('<path>', 'JSON Lines file, or StableToolBench cache directory')
    .option('--cache <file|url>', 'response cache: a SQLite file, or a postgres://user:pass@host/db URL shared by replicas', defaultCacheFile())
    .option('--library <dir>', 'library whose ToolBench tools a StableToolBench cache is matched to', defaultLibraryDir())
    .option('--replace', 'imported entries replace existing ones with the same tool and arguments (default: existing ones are kept)')
    .option('--json', 'print the summary as one JSON object')
    .action(async (path: string, opts: ImportOptions) => {
      let isDirectory: boolean;
      try {
        isDirectory = statSync(path).isDirectory();
      } catch {
        throw new UsageError(`cannot read ${path}: no such file or directory`);
      }
      if (isDirectory) await importStableBench(path, opts);
      else await importJsonLines(path, opts);
    });
}

async function importJsonLines(file: string, opts: ImportOptions): Promise<void> {
  const { readExportFile } = await import('../../simulator/cache-jsonl.js');
  const { counts, where } = await withCache(opts.cache, (store) => store.import(readExportFile(file), { replace: opts.replace }));
  if (opts.json) return printJson({ cache: where, from: file, format: 'jsonl', ...counts });
  printLine(`imported ${file} into ${where}: ${describe(counts)}`);
}

async function importStableBench(root: string, opts: ImportOptions): Promise<void> {
  const [{ LibraryStore }, { readStableBench, StableBenchIndex }] = await Promise.all([import('../../library/store.js'), import('../../simulator/stablebench.js')]);
  const library = LibraryStore.open(opts.library);
  let index: StableBenchIndex;
  try {
    index = new StableBenchIndex(library.iterate());
  } finally {
    library.close();
  }
  if (index.size === 0) throw new UsageError(`${opts.library} has no tools of ToolBench origin to match a StableToolBench cache to`);
  const report: StableBenchReport = { files: 0, matched_files: 0, unmatched: [], entries: 0, skipped_errors: 0, skipped_arguments: [] };
  const { counts, where } = await withCache(opts.cache, (store) => store.import(readStableBench(root, index, report), { replace: opts.replace }));
  if (opts.json) return printJson({ cache: where, from: root, format: 'stabletoolbench', ...counts, ...report });
  printLine(`imported ${root} into ${where}: ${describe(counts)}`);
  printLine(`files: ${report.files}, matched to library tools: ${report.matched_files}, unmatched: ${report.unmatched.length}`);
  printLine(`skipped: ${report.skipped_errors} recorded errors, ${report.skipped_arguments.length} unreadable argument keys`);
  const shown = report.unmatched.slice(0, 20);
  if (shown.length > 0) {
    printLine('unmatched files:');
    for (const file of shown) printLine(`  ${file}`);
    if (report.unmatched.length > shown.length) printLine(`  … and ${report.unmatched.length - shown.length} more (--json lists all)`);
  }
}

async function withCache(location: string, run: (store: CacheBackend) => ImportCounts | Promise<ImportCounts>): Promise<{ counts: ImportCounts; where: string }> {
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
