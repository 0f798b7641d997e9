import { Option, type Command } from 'commander';
import { defaultLibraryDir } from '../paths.js';
import { openaiSpecFlag, printJson, printLine, quietOnClosedStdout } from './output.js';
import { UsageError } from '../terminal/errors.js';

interface RewardFlags {
  library: string;
  judge?: string;
  judgeApiKey?: string;
  verdicts?: string;
  json?: boolean;
}

export function registerReward(program: Command): void {
  program
    .command('reward')
    .description(
      're-score saved runs offline with the server’s reward functions (eval run files, GET /v1/episodes/{id} as JSON ' +
        'or JSON lines): R_step, R_phase, R_traj, R_ans',
    )
    .argument('<files...>', 'saved runs')
    .option(
      '--library <dir>',
      'library whose dependency graph scores L2 and L3 (graph.db; without one they are not scored)',
      defaultLibraryDir(),
    )
    .option('--judge <spec>', 'answer judge for tasks without an expected answer: openai:MODEL@URL')
    .addOption(
      new Option('--judge-api-key <key>', 'key sent to the judge as a Bearer token').env('TOOLENV_JUDGE_API_KEY'),
    )
    .option(
      '--verdicts <json>',
      'score every run with these verdicts: {"quality","faithfulness","utility"}, each YES, PARTIAL or NO',
    )
    .option('--json', 'print one JSON line per file ({file, rewards}), then a summary line')
    .action(async (files: string[], flags: RewardFlags) => {
      quietOnClosedStdout();
      if (flags.judge !== undefined) await openaiSpecFlag('--judge', flags.judge);
      const [{ rescore }, { SavedRunError }] = await Promise.all([
        import('../episodes/rescore.js'),
        import('../episodes/saved-run.js'),
      ]);
      const summary = await rescore({
        files,
        library: flags.library,
        judge: flags.judge,
        judgeApiKey: flags.judgeApiKey,
        verdicts: flags.verdicts,
        onFile: (file, rewards) => {
          if (flags.json) printJson({ file, rewards });
          else
            printLine(
              `${file}: r_step ${fixed(rewards.r_step)}  r_phase ${fixed(rewards.r_phase)}  r_traj ` +
                `${fixed(rewards.r_traj)}  r_ans ${fixed(rewards.r_ans)} ` +
                `(${rewards.answer_source})` +
                (rewards.r_state === undefined ? '' : `  r_state ${fixed(rewards.r_state)}`) +
                (rewards.flagged ? `  flagged: ${rewards.flagged}` : ''),
            );
        },
      }).catch((error: unknown) => {
        throw error instanceof SavedRunError ? new UsageError(error.message) : error;
      });
      if (flags.json) printJson(summary);
      else
        printLine(
          `${summary.files} runs, ${summary.flagged} flagged; means: r_step ${fixed(summary.mean.r_step)}  r_phase ` +
            `${fixed(summary.mean.r_phase)}  r_traj ${fixed(summary.mean.r_traj)}  r_ans ` +
            `${fixed(summary.mean.r_ans)}` +
            (summary.state
              ? `  r_state ${fixed(summary.mean.r_state ?? null)} (state_success ${summary.state.succeeded} of ` +
                `${summary.state.runs})`
              : '') +
            (summary.graph ? '' : ' (no dependency graph: L2 and L3 not scored)'),
        );
    });
}

const fixed = (value: number | null) => (value === null ? '–' : value.toFixed(3));
