import type { Command } from 'commander';
import { defaultLibraryDir } from '../paths.js';
import { choiceFlag, printJson, printLine, quietOnClosedStdout } from './output.js';
import { UsageError } from '../terminal/errors.js';

interface ExportFlags {
  out: string;
  library: string;
  arguments: string;
  json?: boolean;
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      'write saved runs (eval trajectories, GET /v1/episodes/{id} as JSON or JSON lines), in any protocol, as ' +
        'Hugging Face chat rows: messages with tool_calls and tool messages, ' +
        'and a tools column, the form TRL’s SFTTrainer reads',
    )
    .argument('<files...>', 'saved runs')
    .option('--out <file>', 'the JSON Lines file the rows go to', 'chat.jsonl')
    .option(
      '--library <dir>',
      'library whose records summarize the search results, as a chat episode shows them',
      defaultLibraryDir(),
    )
    .option(
      '--arguments <form>',
      'tool-call arguments as a JSON string (OpenAI’s form, one Arrow type in every row; Qwen3’s template writes it ' +
        'as is) or an object (for templates that `tojson` them, such as Qwen2.5 and Llama 3.1): string or object',
      'string',
    )
    .option('--json', 'print one JSON line per file, then a summary line')
    .action(async (files: string[], flags: ExportFlags) => {
      quietOnClosedStdout();
      const form = choiceFlag('--arguments', flags.arguments, ['string', 'object'] as const);
      const [{ exportChatRows }, { SavedRunError }] = await Promise.all([
        import('../episodes/chat-rows.js'),
        import('../episodes/saved-run.js'),
      ]);
      const summary = await exportChatRows({
        files,
        out: flags.out,
        library: flags.library,
        arguments: form,
        onFile: (file, outcome) => {
          if (flags.json) printJson({ file, ...outcome });
          else if ('skipped' in outcome) printLine(`${file}: skipped: ${outcome.skipped}`);
        },
      }).catch((error: unknown) => {
        throw error instanceof SavedRunError ? new UsageError(error.message) : error;
      });
      if (flags.json) printJson(summary);
      else
        printLine(
          `${summary.rows} of ${summary.files} runs written to ` +
            `${summary.out}${summary.skipped.length > 0 ? `; ${summary.skipped.length} skipped` : ''}`,
        );
    });
}
