/** How every subcommand talks to its user: `--json` summaries on stdout's last line, one-line errors on stderr. */
import { MAX_TURN_TEXT, MIN_OBSERVATION_CHARS } from '../episodes/limits.js';
import { UsageError } from '../terminal/errors.js';
import { SYSTEM_PROMPTS, type SystemPromptStyle } from '../wire/episodes.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Parses an integer flag, or throws a UsageError naming the flag. */
export function intFlag(
  name: string,
  value: string,
  { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {},
): number {
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

/**
 * An integer with comma groups (50011 → "50,011"), as toLocaleString('en-US') writes it without first loading ICU (tens
 * of ms).
 */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Checks an `openai:MODEL@URL` flag (`--judge`, `--phrase`) before anything starts; a bad one is a usage error naming
 * the flag.
 */
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

/** A flag that takes one of a fixed list of values; anything else is a usage error naming them. */
export function choiceFlag<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
}

/** `--system-prompt`: the episode's `system_prompt`. */
export function systemPromptFlag(value: string): SystemPromptStyle {
  return choiceFlag('--system-prompt', value, SYSTEM_PROMPTS);
}

/** What `--system-prompt` says in every command that opens episodes. */
export const SYSTEM_PROMPT_HELP =
  'the episode’s system prompt: full (teaches the protocol) or brief (~300 tokens, for a policy fine-tuned on it; ' +
  'every stage of one policy must use the same)';
