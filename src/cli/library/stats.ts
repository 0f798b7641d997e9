import type { Command } from 'commander';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';
import { barChart } from '../../terminal/chart.js';

export function registerStats(library: Command): void {
  library
    .command('stats')
    .description('tools, APIs, categories (as a bar chart), schema and example coverage, build info')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--json', 'print one JSON object')
    .action(async (opts: { library: string; json?: boolean }) => {
      const { LibraryStore } = await import('../../library/store.js');
      const store = LibraryStore.open(opts.library);
      try {
        const stats = store.stats();
        if (opts.json) return printJson({ library: opts.library, ...stats });
        const pct = (n: number) => (stats.tools ? ((100 * n) / stats.tools).toFixed(1) : '0.0');
        printLine(`library      ${opts.library}`);
        printLine(`tools        ${stats.tools}`);
        printLine(`apis         ${stats.apis}`);
        printLine(`categories   ${stats.categories.length}`);
        printLine(
          `formats      ${Object.entries(stats.formats)
            .map(([f, n]) => `${f} ${n}`)
            .join(', ')}`,
        );
        printLine(`response schema  ${stats.with_response_schema} (${pct(stats.with_response_schema)}%)`);
        printLine(`examples         ${stats.with_examples} (${pct(stats.with_examples)}%)`);
        if (stats.build) printLine(`build        ${JSON.stringify(stats.build)}`);
        printLine();
        for (const line of barChart(stats.categories.map((c) => ({ label: c.category, value: c.tools }))))
          printLine(line);
      } finally {
        store.close();
      }
    });
}
