import type { Command } from 'commander';
import { TASK_FORMATS, TaskFileError, type TaskFormat } from '../../eval/tasks.js';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';
import { barChart } from '../../terminal/chart.js';
import { UsageError } from '../../terminal/errors.js';

interface StatsFlags {
  format?: string;
  library: string;
  json?: boolean;
}

export function registerTasksStats(tasks: Command): void {
  tasks
    .command('stats')
    .description(
      'counts of a task file by source, tools per task and category; tasks with an expected answer, a tool set, a seed',
    )
    .argument('<file>', 'task file in any format eval reads')
    .option('--format <format>', `task file format: ${TASK_FORMATS.join(', ')} (default: detected)`)
    .option(
      '--library <dir>',
      'library whose categories the reference tools are counted by (skipped when the default one is missing)',
      defaultLibraryDir(),
    )
    .option('--json', 'print the summary as one JSON object (last stdout line)')
    .action(async (path: string, flags: StatsFlags, command: Command) => {
      if (flags.format !== undefined && !(TASK_FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format must be one of ${TASK_FORMATS.join(', ')}, got ${JSON.stringify(flags.format)}`);
      }
      // Loaded here: the loaders, the mapping and the library store are no cost to other commands.
      const [{ loadTasks }, { libraryCategories, taskStats }, { LibraryStore }] = await Promise.all([
        import('../../eval/load.js'),
        import('../../tasks/stats.js'),
        import('../../library/store.js'),
      ]);
      let file;
      try {
        file = loadTasks(path, flags.format as TaskFormat | undefined);
      } catch (error) {
        if (error instanceof TaskFileError) throw new UsageError(error.message);
        throw error;
      }
      let lookup;
      if (LibraryStore.exists(flags.library)) {
        const store = LibraryStore.open(flags.library);
        try {
          lookup = await libraryCategories(store, file);
        } finally {
          store.close();
        }
      } else if (command.getOptionValueSource('library') === 'cli') {
        throw new UsageError(`no library at ${flags.library}`);
      }
      const stats = taskStats(file, lookup);
      const library = lookup ? flags.library : null;
      if (flags.json) return printJson({ ...stats, library });

      const share = (n: number) => `${n} (${stats.tasks ? ((100 * n) / stats.tasks).toFixed(1) : '0.0'}%)`;
      const rows: [string, string][] = [
        ['tasks', String(stats.tasks)],
        ['with an expected answer', share(stats.with_answer)],
        ['with expect (world state)', share(stats.with_expect)],
        ['with tools (episode restricted)', share(stats.with_tools)],
        ['with a seed', share(stats.with_seed)],
        ['reference tools', String(stats.references)],
      ];
      if (stats.unknown_references !== null) rows.push(['  not in the library', String(stats.unknown_references)]);
      printLine(`${stats.file} (${stats.format})${library ? `, categories from ${library}` : ''}`);
      printLine();
      printLine('| statistic | value |');
      printLine('|---|---:|');
      for (const [label, value] of rows) printLine(`| ${label} | ${value} |`);
      const chart = (title: string, counts: Record<string, number>) => {
        printLine();
        printLine(`${title}:`);
        for (const line of barChart(Object.entries(counts).map(([label, value]) => ({ label, value }))))
          printLine(line);
      };
      chart('by source', stats.sources);
      chart('reference tools per task', stats.tools_per_task);
      if (stats.categories !== null && Object.keys(stats.categories).length > 0)
        chart('reference tools by category', stats.categories);
    });
}
