/** How long a step may go unannounced: past it, the log says what the command is waiting for. */
export const SLOW_STEP_MS = 1000;

/** Runs a step; one that takes longer than SLOW_STEP_MS is announced while it runs and timed when it ends. */
export async function slowStep<T>(
  log: ((line: string) => void) | undefined,
  what: string,
  step: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let announced = false;
  const timer = setTimeout(() => {
    announced = true;
    log?.(`toolenv: ${what}…`);
  }, SLOW_STEP_MS);
  try {
    return await step();
  } finally {
    clearTimeout(timer);
    if (announced) log?.(`toolenv: ${what}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
