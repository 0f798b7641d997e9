import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Command } from 'commander';
import { defaultCacheFile } from '../../paths.js';
import { printJson, printLine } from '../output.js';

export function registerCacheExport(cache: Command): void {
  cache
    .command('export')
    .description(
      'write every entry as JSON Lines {tool, arguments, status, ' +
        'body, source, created_at, hits, last_hit_at} (stdout, or --out)',
    )
    .option(
      '--cache <file|url>',
      'response cache: a SQLite file, or a postgres://user:pass@host/db URL shared by replicas',
      defaultCacheFile(),
    )
    .option('--out <file>', 'write to this file instead of stdout (a summary is then printed)')
    .option('--json', 'with --out: print the summary as one JSON object')
    .action(async (opts: { cache: string; out?: string; json?: boolean }) => {
      const [{ openResponseCache }, { exportLine }] = await Promise.all([
        import('../../simulator/cache-open.js'),
        import('../../simulator/cache-jsonl.js'),
      ]);
      const store = (await openResponseCache(opts.cache, 'read-only'))!;
      const out: NodeJS.WritableStream | WriteStream = opts.out ? createWriteStream(opts.out) : process.stdout;
      let exported = 0;
      try {
        for await (const entry of store.entries()) {
          exported++;
          if (!out.write(exportLine(entry))) await once(out, 'drain');
        }
      } finally {
        await store.close();
      }
      if (!opts.out) return;
      (out as WriteStream).end();
      await once(out, 'finish');
      if (opts.json) printJson({ cache: store.file, out: opts.out, exported });
      else printLine(`exported ${exported} entries from ${store.file} to ${opts.out}`);
    });
}
