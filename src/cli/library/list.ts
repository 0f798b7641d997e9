import type { Command } from 'commander';
import { LibraryStore } from '../../library/store.js';
import { defaultLibraryDir } from '../../paths.js';
import { printLine } from '../output.js';

export function registerList(library: Command): void {
  library
    .command('list')
    .description('every tool; with --json, JSON Lines of {id, name, description, category, parameters, origin}')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--category <name>', 'only this category')
    .option('--json', 'JSON Lines, one tool per line')
    .action(async (opts: { library: string; category?: string; json?: boolean }) => {
      const store = LibraryStore.open(opts.library);
      try {
        const out: string[] = [];
        const flush = async () => {
          if (!process.stdout.write(out.join(''))) await new Promise((resolve) => process.stdout.once('drain', resolve));
          out.length = 0;
        };
        for (const tool of store.iterate({ category: opts.category })) {
          out.push(
            opts.json
              ? `${JSON.stringify({ id: tool.id, name: tool.name, description: tool.description, category: tool.category, parameters: tool.parameters, origin: tool.origin })}\n`
              : `${tool.id}\t${tool.category}\t${tool.name}\n`,
          );
          if (out.length >= 1000) await flush();
        }
        await flush();
      } finally {
        store.close();
      }
    });
}
