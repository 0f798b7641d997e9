import type { Command } from 'commander';
import type { MineSummary } from '../../simulator/prior/mine.js';
import { defaultLibraryDir } from '../../paths.js';
import { UsageError } from '../../terminal/errors.js';
import { intFlag, numberFlag, printJson, printLine } from '../output.js';

export interface LeaveOutFlags {
  leaveOut?: string;
  splitSeed?: string;
  holdoutShare?: string;
  splitBy?: string;
}

export interface PriorSummary extends MineSummary {
  file: string;
  file_mb: number;
  ms: number;
}

/** What a prior leaves unread: whole APIs, and operations (tool ids) of the APIs it reads. */
export interface LeaveOut {
  apis: Set<string>;
  operations: Set<string>;
}

/** The library's API ids, and (read only when asked) the ids of its operations that keep an example. */
export type LeaveOutRule = (apiIds: string[], operationIds: () => string[]) => LeaveOut;

export const SPLIT_BY = ['apis', 'operations'] as const;

/** The flags naming what a prior must not read: a file, or the split `fidelity --examples` draws. */
export function addLeaveOutOptions(command: Command): Command {
  return command
    .option(
      '--leave-out <file>',
      'ids whose examples the value prior must not read, one a line (fidelity --write-holdout writes one)',
    )
    .option('--split-seed <n>', 'leave out the held-out side of this fidelity --examples split (with --holdout-share)')
    .option('--holdout-share <x>', 'the share that split holds out')
    .option(
      '--split-by <what>',
      `what --leave-out lists and the split holds out: ${SPLIT_BY.join(' or ')} (operations: an operation's ` +
        'examples and all its responses refer to)',
      'apis',
    );
}

/** What to leave out, as a function of the library's ids; bad flags are refused here, before any work. */
export async function leaveOutRule(flags: LeaveOutFlags): Promise<LeaveOutRule> {
  const { heldOutIds, readIdList } = await import('../../fidelity/split.js');
  const by = flags.splitBy ?? 'apis';
  if (!(SPLIT_BY as readonly string[]).includes(by))
    throw new UsageError(`--split-by must be ${SPLIT_BY.join(' or ')}, got ${JSON.stringify(by)}`);
  const rule = (pick: (ids: string[]) => Set<string>): LeaveOutRule =>
    by === 'apis'
      ? (apiIds) => ({ apis: pick(apiIds), operations: new Set() })
      : (_apiIds, operationIds) => ({ apis: new Set(), operations: pick(operationIds()) });
  if ((flags.splitSeed === undefined) !== (flags.holdoutShare === undefined))
    throw new UsageError('--split-seed and --holdout-share go together');
  if (flags.leaveOut !== undefined && flags.splitSeed !== undefined)
    throw new UsageError('--leave-out or --split-seed with --holdout-share, not both');
  if (flags.leaveOut !== undefined) {
    try {
      const listed = readIdList(flags.leaveOut);
      return rule(() => listed);
    } catch (error) {
      throw new UsageError(`--leave-out: ${(error as Error).message}`);
    }
  }
  if (flags.splitSeed === undefined) return rule(() => new Set());
  const seed = intFlag('--split-seed', flags.splitSeed, { min: 0, max: 0xffffffff });
  const share = numberFlag('--holdout-share', flags.holdoutShare!, { min: 0, max: 1 });
  return rule((ids) => heldOutIds(ids, seed, share));
}

/** Mines the value prior of the library in `dir` and writes it to `out`, else prior.json beside its tools.db. */
export async function minePriorInto(dir: string, leaveOut: LeaveOutRule, out?: string): Promise<PriorSummary> {
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
    const unread = leaveOut(
      store.apis().map((a) => a.api_id),
      () => store.exampleTools().map((row) => row.id),
    );
    const { prior, summary } = minePrior(store, unread.apis, unread.operations);
    const file = writePrior(dir, prior, out);
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
  `value prior  ${p.file} (${p.file_mb.toFixed(1)} MB): ${p.values} documented values of ${p.apis} APIs (${p.left_out} ` +
  `left out${p.left_out_operations ? `, and ${p.left_out_operations} operations` : ''}) in ${p.contexts} contexts, ` +
  `${(p.ms / 1000).toFixed(1)} s`;

export function registerPrior(library: Command): void {
  const command = library
    .command('prior')
    .description(
      "mine the value prior (what the vendors' documented examples hold per field) of an existing library into " +
        'prior.json beside its tools.db',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option(
      '--out <file>',
      "write the prior there instead of the library's prior.json (a held-out split's prior, for fidelity --prior), " +
        'leaving the one serve reads as it is',
    )
    .option('--json', 'print one JSON summary line');
  addLeaveOutOptions(command).action(
    async (flags: LeaveOutFlags & { library: string; out?: string; json?: boolean }) => {
      const rule = await leaveOutRule(flags);
      if (flags.out !== undefined) {
        const [{ existsSync, statSync }, { dirname, resolve }] = await Promise.all([
          import('node:fs'),
          import('node:path'),
        ]);
        const folder = dirname(resolve(flags.out));
        if (!existsSync(folder) || !statSync(folder).isDirectory())
          throw new UsageError(`--out: no folder ${folder} to write ${flags.out} in`);
      }
      const summary = await minePriorInto(flags.library, rule, flags.out);
      if (flags.json) return printJson(summary);
      printLine(priorLine(summary));
    },
  );
}
