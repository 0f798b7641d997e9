import cliProgress from 'cli-progress';

export interface StagedProgress {
  update: (stage: string, done: number, total: number) => void;
  stop: () => void;
}

/** One bar per stage of a long job (a bar restarts when the stage changes), on stderr and only when it is a terminal. */
export function stagedProgress(unit: string): StagedProgress {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
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
