import cliProgress from 'cli-progress';

export interface StagedProgress {
  update: (stage: string, done: number, total: number) => void;
  stop: () => void;
}

/**
 * How often progress is written as a line when stderr is not a terminal (a log file, CI), unless
 * TOOLENV_PROGRESS_SECONDS says.
 */
export const LOG_INTERVAL_MS = 10_000;

/** The line interval: TOOLENV_PROGRESS_SECONDS (0 writes every update), else LOG_INTERVAL_MS. */
export function logInterval(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.TOOLENV_PROGRESS_SECONDS;
  const seconds = text === undefined || text.trim() === '' ? NaN : Number(text);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : LOG_INTERVAL_MS;
}

/**
 * One bar per stage of a long job (a bar restarts when the stage changes) on a terminal's stderr. Written to a log
 * file instead, progress is a line whenever the job has written none for the interval, whichever stage it is in
 * (a job of many short stages is not silent), and one when a stage that wrote a line ends further on; a job that
 * ends sooner writes none.
 */
export function stagedProgress(unit: string): StagedProgress {
  if (!process.stderr.isTTY) return logProgress(unit);
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `{stage} [{bar}] {value}/{total} ${unit} | {duration_formatted}, ETA {eta_formatted}`,
      // The ETA from the last 50 updates rather than 10: embedding batches vary in length.
      etaBuffer: 50,
      hideCursor: true,
    },
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

/** How often the log checks for silence between updates: a model load or an embedding batch awaits without any. */
const HEARTBEAT_MS = 1000;

export function logProgress(
  unit: string,
  now: () => number = () => performance.now(),
  intervalMs = logInterval(),
): StagedProgress {
  let stage: { name: string; done: number; total: number; started: number; written: number | undefined } | undefined;
  let lastLine = now();
  let heartbeat: NodeJS.Timeout | undefined;
  const write = (s: NonNullable<typeof stage>) => {
    const seconds = (now() - s.started) / 1000;
    // A stage as long as a full-library embedding says how long it still has, at its rate so far.
    const left =
      s.done > 0 && s.done < s.total ? `, ~${Math.round((seconds * (s.total - s.done)) / s.done)} s left` : '';
    process.stderr.write(
      `toolenv: ${s.name} ${s.done}/${s.total} ${unit} ` +
        `(${s.total === 0 ? 100 : Math.floor((s.done / s.total) * 100)}%, ${seconds.toFixed(0)} s${left})\n`,
    );
    s.written = s.done;
    lastLine = now();
  };
  const due = () => now() - lastLine >= intervalMs;
  const end = () => {
    if (stage?.written !== undefined && stage.written !== stage.done) write(stage);
    stage = undefined;
  };
  return {
    update: (name, done, total) => {
      if (stage?.name !== name) {
        end();
        stage = { name, done, total, started: now(), written: undefined };
      }
      Object.assign(stage!, { done, total });
      if (due()) write(stage!);
      heartbeat ??= setInterval(() => {
        if (intervalMs > 0 && stage && due()) write(stage);
      }, HEARTBEAT_MS).unref();
    },
    stop: () => {
      end();
      clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
