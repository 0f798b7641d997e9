import type { Command } from 'commander';
import { defaultLibraryDir } from '../../paths.js';
import { intFlag, openaiSpecFlag, printJson, printLine, quietOnClosedStdout } from '../output.js';
import { UsageError } from '../../terminal/errors.js';

interface SynthFlags {
  count: string;
  seed: string;
  kind: string;
  tools: string;
  category?: string;
  hard?: boolean;
  phrase?: string;
  phraseApiKey?: string;
  library: string;
  serverSeed: string;
  out?: string;
  json?: boolean;
}

export function registerTasksSynth(tasks: Command): void {
  tasks
    .command('synth')
    .description(
      'synthesize verifiable tasks from the library and its dependency graph: reference chains run through the ' +
        'simulator, answers read off their results, or world-state assertions that fail before them and hold after',
    )
    .option('--count <n>', 'tasks to make', '100')
    .option('--seed <n>', 'seed of the draws and the argument values', '0')
    .option(
      '--kind <kind>',
      'read: questions answered from the results; write: changes checked by `expect` on the world; mixed: both',
      'read',
    )
    .option('--tools <range>', 'tools per task: N or MIN-MAX (1 to 4)', '1-4')
    .option('--category <name>', 'only tools of this category')
    .option(
      '--hard',
      'bias toward tasks with more tools: a stratum of n tools drawn with weight n² (the paper’s RL set)',
    )
    .option(
      '--phrase <spec>',
      'an LLM rewrites each query (openai:MODEL@URL); a rewrite that drops a value or names a tool id is not used',
    )
    .option('--phrase-api-key <key>', 'key of the --phrase endpoint')
    .option('--library <dir>', 'library directory (its graph.db too: `toolenv graph build`)', defaultLibraryDir())
    .option('--server-seed <n>', 'the simulator seed the answers hold for: serve with the same --seed', '0')
    .option('--out <file>', 'write the tasks here (JSON Lines); without it they go to stdout and the summary to stderr')
    .option('--json', 'the summary as one JSON object')
    .action(async (flags: SynthFlags) => {
      quietOnClosedStdout();
      const count = intFlag('--count', flags.count, { min: 1, max: 1_000_000 });
      const seed = intFlag('--seed', flags.seed);
      const serverSeed = intFlag('--server-seed', flags.serverSeed);
      const [minTools, maxTools] = toolsRange(flags.tools);
      const { TASK_GOALS } = await import('../../tasks/synth/candidates.js');
      const goal = TASK_GOALS.find((g) => g === flags.kind);
      if (goal === undefined)
        throw new UsageError(`--kind must be one of ${TASK_GOALS.join(', ')}, got ${JSON.stringify(flags.kind)}`);
      if (flags.phrase !== undefined) await openaiSpecFlag('--phrase', flags.phrase);
      const { synthCommand } = await import('../../tasks/synth/command.js');
      const summary = await synthCommand({
        count,
        seed,
        goal,
        serverSeed,
        minTools,
        maxTools,
        category: flags.category,
        hard: flags.hard === true,
        phrase: flags.phrase,
        phraseApiKey: flags.phraseApiKey,
        library: flags.library,
        out: flags.out,
      });
      const strata = Object.entries(summary.strata)
        .map(([n, c]) => `${n}: ${c}`)
        .join(', ');
      const dropped =
        Object.entries(summary.dropped)
          .filter(([, c]) => c > 0)
          .map(([r, c]) => `${r} ${c}`)
          .join(', ') || 'none';
      const line =
        `made ${summary.tasks} ${goal === 'read' ? '' : `${goal} `}tasks from ${summary.candidates} candidates in ` +
        `${(summary.duration_ms / 1000).toFixed(1)} s (by tools: ${strata}; ` +
        `${(summary.executed_share * 100).toFixed(1)}% of the finished chains ran again alike; dropped: ` +
        `${dropped})${summary.out ? ` → ${summary.out}` : ''}`;
      const write = flags.out === undefined ? (text: string) => process.stderr.write(`${text}\n`) : printLine;
      if (summary.asked !== undefined)
        process.stderr.write(
          `toolenv: only ${summary.tasks} of the ${summary.asked} ` +
            'tasks asked for could be made (see the drop counts)\n',
        );
      if (summary.rephrase && summary.rephrase.failed > 0)
        process.stderr.write(
          `toolenv: --phrase failed on ${summary.rephrase.failed} queries, which keep their template (last error: ` +
            `${summary.rephrase.last_error})\n`,
        );
      if (flags.json) {
        if (flags.out === undefined) process.stderr.write(`${JSON.stringify(summary)}\n`);
        else printJson(summary);
      } else write(line);
    });
}

/** `--tools N` or `MIN-MAX`, within 1–4. */
function toolsRange(text: string): [number, number] {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  const min = match ? Number(match[1]) : NaN;
  const max = match?.[2] !== undefined ? Number(match[2]) : min;
  if (!match || min < 1 || max > 4 || min > max)
    throw new UsageError(`--tools must be N or MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 4, got ${JSON.stringify(text)}`);
  return [min, max];
}
