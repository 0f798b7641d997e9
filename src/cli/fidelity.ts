import type { Command } from 'commander';
import type { CacheBackend } from '../simulator/cache-types.js';
import type { Responder } from '../simulator/types.js';
import { defaultLibraryDir } from '../paths.js';
import {
  addModelOptions,
  closeModels,
  MODEL_RESPONDERS,
  respondersFromFlags,
  startModels,
  type ModelFlags,
} from './model.js';
import { intFlag, printJson, printLine } from './output.js';
import { UsageError } from '../terminal/errors.js';

interface FidelityFlags extends ModelFlags {
  library: string;
  sample: string;
  seed: string;
  responder: string;
  recorded?: string;
  json?: boolean;
}

export function registerFidelity(program: Command): void {
  const fidelity = program
    .command('fidelity')
    .description(
      'measure how real the simulated answers look (issue #17): schema validity, request consistency, plausibility and error shapes, per response source, over a seeded sample of tools',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--sample <n>', 'tools drawn (all of a smaller library)', '2000')
    .option('--seed <n>', 'seed of the sample, the requests and the simulator', '1')
    .option(
      '--responder <names>',
      `responders asked in order, comma-separated: example, synth, ${MODEL_RESPONDERS.join(', ')} (synth is always the last fallback)`,
      'example,synth',
    )
    .option(
      '--recorded <file|url>',
      'also score the real answers stored in this response cache (source real: recorded with serve --upstream record, or imported with cache import --format toolbench) under real',
    )
    .option('--json', 'print the report as one JSON object (last stdout line)');
  addModelOptions(fidelity).action(async (flags: FidelityFlags) => {
    const sample = intFlag('--sample', flags.sample, { min: 1, max: 1_000_000 });
    const seed = intFlag('--seed', flags.seed, { min: 0, max: 0xffffffff });
    const [
      { LibraryStore },
      { examplesResponder },
      { synthResponder },
      { runFidelity },
      { reportLines },
      { stagedProgress },
    ] = await Promise.all([
      import('../library/store.js'),
      import('../simulator/examples.js'),
      import('../simulator/synth/responder.js'),
      import('../fidelity/run.js'),
      import('../fidelity/report-text.js'),
      import('../terminal/progress.js'),
    ]);
    if (!LibraryStore.exists(flags.library)) throw new UsageError(`no library at ${flags.library}`);
    const store = LibraryStore.open(flags.library);
    let recorded: CacheBackend | undefined;
    let responders: Responder[] = [];
    const progress = stagedProgress('tools');
    try {
      responders = await respondersFromFlags(flags.responder, flags, {
        example: examplesResponder,
        synth: synthResponder,
      });
      startModels(responders, undefined, (line) => process.stderr.write(`${line}\n`));
      if (flags.recorded !== undefined) recorded = await openRecorded(flags.recorded);
      const started = performance.now();
      // With a model in the list, the synthesizer also answers the calls the model answered: both on the same calls.
      const report = await runFidelity({
        store,
        responders,
        baseline: synthResponder,
        sample,
        seed,
        onProgress: (done, total) => progress.update('scoring', done, total),
        ...(recorded ? { recorded: recorded.entries() } : {}),
      });
      progress.stop();
      const wallSeconds = (performance.now() - started) / 1000;
      if (flags.json)
        return printJson({ library: flags.library, wall_s: Math.round(wallSeconds * 10) / 10, ...report });
      for (const line of reportLines(report, wallSeconds)) printLine(line);
    } finally {
      progress.stop();
      await closeModels(responders);
      await recorded?.close();
      store.close();
    }
  });
}

/** `--recorded`: an existing cache, opened read-only. */
async function openRecorded(location: string): Promise<CacheBackend> {
  const [{ openResponseCache }, { CacheError }] = await Promise.all([
    import('../simulator/cache-open.js'),
    import('../simulator/cache-error.js'),
  ]);
  try {
    return (await openResponseCache(location, 'read-only'))!;
  } catch (error) {
    if (error instanceof CacheError) throw new UsageError(`--recorded: ${error.message}`);
    throw error;
  }
}
