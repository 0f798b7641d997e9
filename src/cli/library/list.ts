import type { Command } from 'commander';
import { defaultLibraryDir } from '../../paths.js';

export function registerList(library: Command): void {
  library
    .command('list')
    .description(
      'every tool; with --json, JSON Lines of {id, name, description, category, parameters, origin}, then a ' +
        'summary line {tools, category, library}',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--category <name>', 'only this category')
    .option('--json', 'JSON Lines, one tool per line, then a summary line {tools, category, library}')
    .action(async (opts: { library: string; category?: string; json?: boolean }) => {
      const { LibraryStore } = await import('../../library/store.js');
      const store = LibraryStore.open(opts.library);
      try {
        const write = stdoutWriter();
        const out: string[] = [];
        const flush = async () => {
          const open = await write(out.join(''));
          out.length = 0;
          return open;
        };
        let listed = 0;
        for (const tool of store.iterate({ category: opts.category })) {
          listed++;
          const { id, name, description, category, parameters, origin } = tool;
          out.push(
            opts.json
              ? `${JSON.stringify({ id, name, description, category, parameters, origin })}\n`
              : `${tool.id}\t${tool.category}\t${tool.name}\n`,
          );
          if (out.length >= 1000 && !(await flush())) return;
        }
        // Like every --json command, a summary last: it has no `id`, which tells it from the tool lines.
        if (opts.json)
          out.push(`${JSON.stringify({ tools: listed, category: opts.category ?? null, library: store.dir })}\n`);
        await flush();
      } finally {
        store.close();
      }
    });
}

/**
 * Writes to stdout, waiting while its buffer is full; resolves false once the reader is gone, so that
 * `toolenv library list | head` stops quietly instead of dying of EPIPE with a stack trace.
 */
function stdoutWriter(): (chunk: string) => Promise<boolean> {
  let gone = false;
  let wake: (() => void) | undefined;
  process.stdout.on('error', () => {
    gone = true;
    wake?.();
  });
  return async (chunk) => {
    if (gone) return false;
    if (!process.stdout.write(chunk)) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        process.stdout.once('drain', resolve);
      });
    }
    return !gone;
  };
}
