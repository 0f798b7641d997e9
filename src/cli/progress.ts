import cliProgress from 'cli-progress';

export interface StagedProgress {
  update: (stage: string, done: number, total: number) => void;
  stop: () => void;
}

/** How often progress is written as a line when stderr is not a terminal (a log file, CI). */
export const LOG_INTERVAL_MS = 10_000;

/**
 * One bar per stage of a long job (a bar restarts when the stage changes) on a terminal's stderr. Written to a log
 * file instead, progress is a line every LOG_INTERVAL_MS and one when the stage ends, so a job that ends sooner
 * writes none.
 */
export function stagedProgress(unit: string): StagedProgress {
  if (!process.stderr.isTTY) return logProgress(unit);
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `{stage} [{bar}] {value}/{total} ${unit} | {duration_formatted}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let current: string | undefined;
  return {
    update: (stage, done, total) => {
      if (stage !== current) {
        if (current !== undefined) bar.stop();
        current = stage;
        bar.start(total, done, { stage });
      } else bar.update(done);
    },
    stop: () => {
      if (current !== undefined) bar.stop();
      current = undefined;
    },
  };
}

export function logProgress(unit: string, now: () => number = () => performance.now()): StagedProgress {
  let stage: { name: string; done: number; total: number; started: number; written: number | undefined } | undefined;
  const write = (s: NonNullable<typeof stage>) => {
    const seconds = ((now() - s.started) / 1000).toFixed(0);
    process.stderr.write(`toolenv: ${s.name} ${s.done}/${s.total} ${unit} (${s.total === 0 ? 100 : Math.floor((s.done / s.total) * 100)}%, ${seconds} s)\n`);
    s.written = now();
  };
  const end = () => {
    if (stage?.written !== undefined) write(stage);
    stage = undefined;
  };
  return {
    update: (name, done, total) => {
      if (stage?.name !== name) {
        end();
        stage = { name, done, total, started: now(), written: undefined };
      }
      Object.assign(stage!, { done, total });
      if (now() - (stage!.written ?? stage!.started) >= LOG_INTERVAL_MS) write(stage!);
    },
    stop: end,
  };
}
