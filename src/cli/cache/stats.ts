import type { Command } from 'commander';
import { defaultCacheFile } from '../../paths.js';
import { intFlag, printJson, printLine } from '../output.js';
import { barChart } from '../../terminal/chart.js';

export function registerCacheStats(cache: Command): void {
  cache
    .command('stats')
    .description('entries, entries by source, the tools with most entries, hits, size on disk')
    .option(
      '--cache <file|url>',
      'response cache: a SQLite file, or a postgres://user:pass@host/db URL shared by replicas',
      defaultCacheFile(),
    )
    .option('--top <n>', 'how many tools to list', '10')
    .option('--json', 'print one JSON object')
    .action(async (opts: { cache: string; top: string; json?: boolean }) => {
      const top = intFlag('--top', opts.top, { min: 0, max: 100_000 });
      const { openResponseCache } = await import('../../simulator/cache-open.js');
      const store = (await openResponseCache(opts.cache, 'read-only'))!;
      try {
        const stats = await store.stats(top);
        if (opts.json) return printJson(stats);
        printLine(`cache      ${stats.file}`);
        printLine(`entries    ${stats.entries} (${stats.tools} tools)`);
        printLine(`hits       ${stats.hits}`);
        printLine(`size       ${formatBytes(stats.size_bytes)}`);
        printLine(
          `by source  ${
            Object.entries(stats.by_source)
              .map(([s, n]) => `${s} ${n}`)
              .join(', ') || '-'
          }`,
        );
        if (stats.top_tools.length > 0) {
          printLine();
          printLine(`top ${stats.top_tools.length} tools by entries:`);
          for (const line of barChart(stats.top_tools.map((t) => ({ label: t.tool, value: t.entries }))))
            printLine(line);
        }
      } finally {
        await store.close();
      }
    });
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
