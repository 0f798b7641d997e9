import cliProgress from 'cli-progress';

/** One bar per index stage on stderr, only when stderr is a terminal. */
export function indexProgress(): { update: (stage: string, done: number, total: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'index {stage} [{bar}] {value}/{total} tools | {duration_formatted}', hideCursor: true },
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
