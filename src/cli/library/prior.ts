import type { Command } from 'commander';
import type { MineSummary } from '../../simulator/prior/mine.js';
import { defaultLibraryDir } from '../../paths.js';
import { UsageError } from '../../terminal/errors.js';
import { intFlag, numberFlag, printJson, printLine } from '../output.js';

export interface LeaveOutFlags {
  leaveOut?: string;
  splitSeed?: string;
  holdoutShare?: string;
}

export interface PriorSummary extends MineSummary {
  file: string;
  file_mb: number;
  ms: number;
}

/** The flags naming the APIs a prior must not read: a file, or the split `fidelity --examples` draws. */
export function addLeaveOutOptions(command: Command): Command {
  return command
    .option(
      '--leave-out <file>',
      'API ids whose examples the value prior must not read, one a line (fidelity --write-holdout writes one)',
    )
    .option('--split-seed <n>', 'leave out the held-out APIs of this fidelity --examples split (with --holdout-share)')
    .option('--holdout-share <x>', 'the share of APIs that split holds out');
}

/** The APIs to leave out, as a function of the library's API ids; bad flags are refused here, before any work. */
export async function leaveOutRule(flags: LeaveOutFlags): Promise<(apiIds: string[]) => Set<string>> {
  const { heldOutApis, readApiList } = await import('../../fidelity/split.js');
  if ((flags.splitSeed === undefined) !== (flags.holdoutShare === undefined))
    throw new UsageError('--split-seed and --holdout-share go together');
  if (flags.leaveOut !== undefined && flags.splitSeed !== undefined)
    throw new UsageError('--leave-out or --split-seed with --holdout-share, not both');
  if (flags.leaveOut !== undefined) {
    try {
      const listed = readApiList(flags.leaveOut);
      return () => listed;
    } catch (error) {
      throw new UsageError(`--leave-out: ${(error as Error).message}`);
    }
  }
  if (flags.splitSeed === undefined) return () => new Set();
  const seed = intFlag('--split-seed', flags.splitSeed, { min: 0, max: 0xffffffff });
  const share = numberFlag('--holdout-share', flags.holdoutShare!, { min: 0, max: 1 });
  return (apiIds) => heldOutApis(apiIds, seed, share);
}

/** Mines the value prior of the library in `dir` and writes prior.json beside its tools.db. */
export async function minePriorInto(dir: string, leaveOut: (apiIds: string[]) => Set<string>): Promise<PriorSummary> {
  const [{ LibraryStore }, { minePrior }, { writePrior }, { statSync }] = await Promise.all([
    import('../../library/store.js'),
    import('../../simulator/prior/mine.js'),
    import('../../simulator/prior/prior.js'),
    import('node:fs'),
  ]);
  if (!LibraryStore.exists(dir)) throw new UsageError(`no library at ${dir}`);
  const started = performance.now();
  const store = LibraryStore.open(dir);
  try {
    const { prior, summary } = minePrior(store, leaveOut(store.apis().map((a) => a.api_id)));
    const file = writePrior(dir, prior);
    return {
      ...summary,
      file,
      file_mb: Math.round(statSync(file).size / 2 ** 17) / 8,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    store.close();
  }
}

export const priorLine = (p: PriorSummary) =>
  `value prior  ${p.file} (${p.file_mb} MB): ${p.values} documented values of ${p.apis} APIs (${p.left_out} ` +
  `left out) in ${p.contexts} contexts, ${(p.ms / 1000).toFixed(1)} s`;

export function registerPrior(library: Command): void {
  const command = library
    .command('prior')
    .description(
      "mine the value prior (what the vendors' documented examples hold per field) of an existing library into " +
        'prior.json beside its tools.db',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--json', 'print one JSON summary line');
  addLeaveOutOptions(command).action(async (flags: LeaveOutFlags & { library: string; json?: boolean }) => {
    const summary = await minePriorInto(flags.library, await leaveOutRule(flags));
    if (flags.json) return printJson(summary);
    printLine(priorLine(summary));
  });
}
