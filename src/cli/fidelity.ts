import type { Command } from 'commander';
import type { CacheBackend } from '../simulator/cache-types.js';
import type { ValuePrior } from '../simulator/prior/prior.js';
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
import { SPLIT_BY } from './library/prior.js';
import { intFlag, numberFlag, printJson, printLine } from './output.js';
import { UsageError } from '../terminal/errors.js';

interface FidelityFlags extends ModelFlags {
  library: string;
  sample: string;
  seed: string;
  responder: string;
  recorded?: string;
  json?: boolean;
  examples?: boolean;
  splitSeed: string;
  holdoutShare: string;
  holdout?: string;
  writeHoldout?: string;
  side: string;
  splitBy: string;
  /** A prior file, false for none (`--no-prior`), undefined for the library's own. */
  prior?: string | false;
}

/** Operations `--examples` measures unless --sample says otherwise. */
const EXAMPLES_SAMPLE = 600;
const SIDES = ['held-out', 'kept'] as const;

export function registerFidelity(program: Command): void {
  const fidelity = program
    .command('fidelity')
    .description(
      'measure how real the simulated answers look (issue #17): schema validity, request consistency, ' +
        'plausibility and error shapes, per response source, over a seeded sample of tools',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--sample <n>', 'tools drawn (all of a smaller library)', '2000')
    .option('--seed <n>', 'seed of the sample, the requests and the simulator', '1')
    .option(
      '--responder <names>',
      `responders asked in order, comma-separated: example, synth, ${MODEL_RESPONDERS.join(', ')} (synth is ` +
        'always the last fallback)',
      'example,synth',
    )
    .option(
      '--recorded <file|url>',
      'also score the real answers stored in this response cache (source real: recorded with serve --upstream ' +
        'record, or imported with cache import --format toolbench) under real',
    )
    .option(
      '--examples',
      "compare answers with the vendors' documented 2xx examples (withheld from the answering library), on one " +
        `side of a seeded split of APIs or operations (default --sample ${EXAMPLES_SAMPLE})`,
    )
    .option('--split-seed <n>', 'with --examples: seed of the split', '1')
    .option('--holdout-share <x>', 'with --examples: share of the APIs (or operations) held out', '0.2')
    .option(
      '--split-by <what>',
      'with --examples: hold out apis (never read by the prior) or operations (their APIs read, their own examples ' +
        'and what their responses refer to not)',
      'apis',
    )
    .option(
      '--holdout <file>',
      'with --examples: the held-out ids, one a line (instead of --split-seed and --holdout-share)',
    )
    .option('--write-holdout <file>', 'with --examples: write the held-out ids there, one a line')
    .option('--side <side>', `with --examples: the side measured, ${SIDES.join(' or ')} (tune on kept)`, 'held-out')
    .option('--prior <file>', "the value prior the synthesizer draws from (default the library's prior.json, if any)")
    .option('--no-prior', 'synthesize without a value prior')
    .option('--json', 'print the report as one JSON object (last stdout line)');
  addModelOptions(fidelity).action(async (flags: FidelityFlags) => {
    const seed = intFlag('--seed', flags.seed, { min: 0, max: 0xffffffff });
    if (flags.examples) {
      const sampleDefault = fidelity.getOptionValueSource('sample') === 'default';
      const sample = sampleDefault ? EXAMPLES_SAMPLE : intFlag('--sample', flags.sample, { min: 1, max: 1_000_000 });
      return examplesCommand(flags, sample, seed);
    }
    for (const flag of ['holdout', 'writeHoldout'] as const)
      if (flags[flag] !== undefined) throw new UsageError('--holdout and --write-holdout go with --examples');
    const sample = intFlag('--sample', flags.sample, { min: 1, max: 1_000_000 });
    const [
      { LibraryStore },
      { examplesResponder },
      { synthResponderWith },
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
    const synthResponder = synthResponderWith((await priorFromFlags(flags))?.prior);
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

/** `fidelity --examples`: the split, the measurement on one side of it, the report. */
async function examplesCommand(flags: FidelityFlags, sample: number, seed: number): Promise<void> {
  if (flags.recorded !== undefined) throw new UsageError('--recorded does not go with --examples');
  if (!(SIDES as readonly string[]).includes(flags.side))
    throw new UsageError(`--side must be ${SIDES.join(' or ')}, got ${JSON.stringify(flags.side)}`);
  if (!(SPLIT_BY as readonly string[]).includes(flags.splitBy))
    throw new UsageError(`--split-by must be ${SPLIT_BY.join(' or ')}, got ${JSON.stringify(flags.splitBy)}`);
  const by = flags.splitBy as (typeof SPLIT_BY)[number];
  const splitSeed = intFlag('--split-seed', flags.splitSeed, { min: 0, max: 0xffffffff });
  const share = numberFlag('--holdout-share', flags.holdoutShare, { min: 0, max: 1 });
  const [
    { LibraryStore },
    { examplesResponder },
    { synthResponderWith },
    { heldOutIds, readIdList, writeIdList },
    { runExamplesFidelity, withheldExpander },
    { examplesReportLines },
    { stagedProgress },
  ] = await Promise.all([
    import('../library/store.js'),
    import('../simulator/examples.js'),
    import('../simulator/synth/responder.js'),
    import('../fidelity/split.js'),
    import('../fidelity/examples-run.js'),
    import('../fidelity/examples-text.js'),
    import('../terminal/progress.js'),
  ]);
  if (!LibraryStore.exists(flags.library)) throw new UsageError(`no library at ${flags.library}`);
  let heldOut: Set<string>;
  try {
    heldOut = flags.holdout !== undefined ? readIdList(flags.holdout) : new Set();
  } catch (error) {
    throw new UsageError(`--holdout: ${(error as Error).message}`);
  }
  const store = LibraryStore.open(flags.library);
  let responders: Responder[] = [];
  const progress = stagedProgress('operations');
  try {
    if (flags.holdout === undefined) {
      const ids = by === 'apis' ? store.apis().map((a) => a.api_id) : store.exampleTools().map((row) => row.id);
      heldOut = heldOutIds(ids, splitSeed, share);
    }
    if (flags.writeHoldout !== undefined) writeIdList(flags.writeHoldout, heldOut);
    const prior = await priorFromFlags(flags);
    // A prior that read a held-out API's (or operation's) examples would be measured on what it learnt: the figures
    // would flatter.
    const apiOf = new Map(by === 'apis' ? [] : store.exampleTools().map((row) => [row.id, row.api_id]));
    const unread = (id: string) =>
      by === 'apis'
        ? prior!.leftOut.has(id)
        : prior!.leftOutOperations.has(id) || prior!.leftOut.has(apiOf.get(id) ?? '');
    const seen = prior && flags.side === 'held-out' ? [...heldOut].filter((id) => !unread(id)) : [];
    if (seen.length > 0)
      throw new UsageError(
        `the value prior ${prior!.file} read the examples of ${seen.length} held-out ${by} (${seen[0]}…): mine ` +
          `it with toolenv library prior --split-by ${by} --leave-out FILE (fidelity --write-holdout FILE), or ` +
          'pass --no-prior',
      );
    // Cut schemas expanded from the API's document as `serve` expands them, its examples withheld there too.
    const expand = withheldExpander((api) => store.apiDocument(api));
    // The examples responder is skipped (dynamic): listed or not, nothing is answered from an example.
    responders = await respondersFromFlags(flags.responder, flags, {
      example: examplesResponder,
      synth: synthResponderWith(prior?.prior, expand),
    });
    startModels(responders, undefined, (line) => process.stderr.write(`${line}\n`));
    const started = performance.now();
    const report = await runExamplesFidelity({
      store,
      responders,
      heldOut,
      side: flags.side as (typeof SIDES)[number],
      by,
      sample,
      seed,
      prior: prior?.prior,
      expand,
      onProgress: (done, total) => progress.update('comparing', done, total),
    });
    progress.stop();
    const wallSeconds = (performance.now() - started) / 1000;
    const priorField = prior
      ? {
          file: prior.file,
          apis: prior.prior.apis,
          left_out: prior.leftOut.size,
          left_out_operations: prior.leftOutOperations.size,
        }
      : null;
    if (flags.json)
      return printJson({
        library: flags.library,
        wall_s: Math.round(wallSeconds * 10) / 10,
        prior: priorField,
        ...report,
      });
    printLine(
      priorField
        ? `value prior: ${priorField.file} (${priorField.apis} APIs read, ${priorField.left_out} left out, ` +
            `${priorField.left_out_operations} operations left out)`
        : 'value prior: none',
    );
    for (const line of examplesReportLines(report, wallSeconds)) printLine(line);
  } finally {
    progress.stop();
    await closeModels(responders);
    store.close();
  }
}

/** The value prior of `--prior FILE`, else the library's prior.json; none with `--no-prior` or when there is none. */
async function priorFromFlags(
  flags: FidelityFlags,
): Promise<{ file: string; prior: ValuePrior; leftOut: Set<string>; leftOutOperations: Set<string> } | undefined> {
  if (flags.prior === false) return undefined;
  const { readPrior, PRIOR_FILE } = await import('../simulator/prior/prior.js');
  const { join } = await import('node:path');
  const file = flags.prior ?? join(flags.library, PRIOR_FILE);
  let prior: ValuePrior | undefined;
  try {
    prior = readPrior(file);
  } catch (error) {
    throw new UsageError(`--prior: ${(error as Error).message}`);
  }
  if (prior === undefined && flags.prior !== undefined) throw new UsageError(`--prior: no file ${flags.prior}`);
  return (
    prior && {
      file,
      prior,
      leftOut: new Set(prior.left_out),
      leftOutOperations: new Set(prior.left_out_operations),
    }
  );
}
