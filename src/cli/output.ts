/** How every subcommand talks to its user: `--json` summaries on stdout's last line, one-line errors on stderr. */
import { MAX_TURN_TEXT, MIN_OBSERVATION_CHARS } from '../episodes/limits.js';

/** A mistake in what the user asked for: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/** A failure another process already reported on stderr (a cluster worker that could not start): only its exit code is left. */
export class ReportedFailure extends Error {
  constructor(readonly exitCode: number) {
    super(`exited with code ${exitCode}`);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Parses an integer flag, or throws a UsageError naming the flag. */
export function intFlag(name: string, value: string, { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {}): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

export function numberFlag(name: string, value: string, { min = -Infinity, max = Infinity } = {}): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${name} must be a number between ${min} and ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** An integer with comma groups (50011 → "50,011"), as toLocaleString('en-US') writes it without first loading ICU (tens of ms). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A horizontal bar chart for the terminal: one row per label, bars scaled to the largest value. */
export function barChart(rows: { label: string; value: number }[], width = 40): string[] {
  const max = Math.max(1, ...rows.map((r) => r.value));
  const labelWidth = Math.max(0, ...rows.map((r) => r.label.length));
  const valueWidth = Math.max(0, ...rows.map((r) => String(r.value).length));
  const eighths = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
  return rows.map(({ label, value }) => {
    const cells = (value / max) * width;
    const bar = '█'.repeat(Math.floor(cells)) + eighths[Math.round((cells % 1) * 7)];
    return `${label.padEnd(labelWidth)}  ${String(value).padStart(valueWidth)} ${bar}`;
  });
}

/** Checks an `openai:MODEL@URL` flag (`--judge`, `--phrase`) before anything starts; a bad one is a usage error naming the flag. */
export async function openaiSpecFlag(flag: string, spec: string): Promise<string> {
  const { parseJudgeSpec } = await import('../rl/judge.js');
  try {
    parseJudgeSpec(spec);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
  return spec;
}

/** `toolenv … | head` stops quietly when the reader goes away, instead of dying of EPIPE with a stack trace. */
export function quietOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
}

/** `--max-observation-chars`: the episode's `max_observation_chars`, in the range the server takes. */
export function observationFlag(value: string): number {
  return intFlag('--max-observation-chars', value, { min: MIN_OBSERVATION_CHARS, max: MAX_TURN_TEXT });
}
