import type { Command } from 'commander';
import { defaultLibraryDir } from '../paths.js';
import { UsageError } from '../terminal/errors.js';
import { SECURITY_MODES } from '../server/rest/security.js';
import { choiceFlag, intFlag, printJson, printLine } from './output.js';

interface ConformanceFlags {
  library: string;
  sample: string;
  seed: string;
  operations: string;
  security: string;
  json?: boolean;
}

export function registerConformance(program: Command): void {
  program
    .command('conformance')
    .description(
      'hold the REST surface of a seeded sample of APIs to the documents it serves (issue #50): answers valid ' +
        'against the document, valid requests accepted, invalid ones refused, statuses declared, media types ' +
        'documented; per API and overall',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--sample <n>', 'APIs drawn (OpenAPI APIs with a REST surface)', '40')
    .option('--seed <n>', 'seed of the sample, the requests and the simulator', '1')
    .option('--operations <n>', 'operations drawn per API at most', '20')
    .option(
      '--security <mode>',
      `the server's check of declared security: ${SECURITY_MODES.join(' or ')} (under enforce, requests carry ` +
        'credentials that meet it, and the same request without them or with malformed ones must be refused)',
      'ignore',
    )
    .option('--json', 'print the report as one JSON object (last stdout line)')
    .action(async (flags: ConformanceFlags) => {
      const sample = intFlag('--sample', flags.sample, { min: 1, max: 100_000 });
      const seed = intFlag('--seed', flags.seed, { min: 0, max: 0xffffffff });
      const operations = intFlag('--operations', flags.operations, { min: 1, max: 100_000 });
      const security = choiceFlag('--security', flags.security, SECURITY_MODES);
      const [{ LibraryStore }, { runConformance }, { conformanceLines }, { stagedProgress }] = await Promise.all([
        import('../library/store.js'),
        import('../conformance/run.js'),
        import('../conformance/report-text.js'),
        import('../terminal/progress.js'),
      ]);
      if (!LibraryStore.exists(flags.library)) throw new UsageError(`no library at ${flags.library}`);
      const progress = stagedProgress('APIs');
      const started = performance.now();
      try {
        const report = await runConformance({
          library: flags.library,
          sample,
          seed,
          operations,
          security,
          progress: (done, total) => progress.update('checking', done, total),
        });
        progress.stop();
        const wallSeconds = Math.round((performance.now() - started) / 100) / 10;
        if (flags.json) return printJson({ wall_s: wallSeconds, ...report });
        for (const line of conformanceLines(report, wallSeconds)) printLine(line);
      } finally {
        progress.stop();
      }
    });
}
