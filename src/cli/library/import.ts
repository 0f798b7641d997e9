import { Option, type Command } from 'commander';
import { IMPORT_FORMATS, type ImportFormat } from '../../library/importers/formats.js';
import { defaultLibraryDir } from '../../paths.js';
import { printJson, printLine } from '../output.js';

interface ImportOptions {
  format: ImportFormat;
  out: string;
  skipInvalid?: boolean;
  json?: boolean;
}

export function registerImport(library: Command): void {
  library
    .command('import')
    .description(
      'import tools into a library (created when missing, extended when present) in one transaction: all or nothing',
    )
    .argument(
      '<path>',
      'a file, or a folder of files (ToolBench: the tools root, one category folder or one tool file)',
    )
    .addOption(new Option('--format <format>', 'what PATH holds').choices(IMPORT_FORMATS).makeOptionMandatory())
    .option('--out <dir>', 'library directory', defaultLibraryDir())
    .option('--skip-invalid', 'leave out files that cannot be imported, report each on stderr, import the rest')
    .option(
      '--json',
      'print a summary object {library, format, imported, apis, replaced, skipped, tools_total} as the last line',
    )
    .action(async (path: string, opts: ImportOptions) => {
      const [{ readImport, writeImport }, { ImportError }, bar] = await Promise.all([
        import('../../library/importers/index.js'),
        import('../../library/importers/errors.js'),
        progressBar(),
      ]);
      let result;
      try {
        result = await readImport(path, opts.format, {
          skipInvalid: opts.skipInvalid,
          onFile: bar && ((done, total) => (done === 0 ? bar.start(total, 0) : bar.update(done))),
        });
      } finally {
        bar?.stop();
      }
      for (const { error } of result.skipped) process.stderr.write(`toolenv: skipped ${error}\n`);
      if (result.skipped.length === result.files) {
        throw new ImportError(`nothing imported: all ${result.files} files under ${path} were invalid`);
      }
      const written = writeImport(opts.out, result.batch);
      if (opts.json) {
        printJson({
          library: opts.out,
          format: opts.format,
          imported: written.imported,
          apis: written.apis,
          replaced: written.replaced,
          skipped: result.skipped,
          tools_total: written.tools_total,
        });
        return;
      }
      const skipped = result.skipped.length > 0 ? `, skipped ${result.skipped.length} invalid files` : '';
      printLine(
        `imported ${written.imported} tools (${written.apis} APIs, ${written.replaced} replaced) from ${path} ` +
          `into ${opts.out}${skipped}`,
      );
      printLine(`the library now has ${written.tools_total} tools`);
    });
}

/** A bar on stderr, only when stderr is a terminal. */
async function progressBar() {
  if (!process.stderr.isTTY) return undefined;
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    {
      format: 'importing {bar} {value}/{total} files',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
}
