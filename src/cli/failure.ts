import { LibraryError } from '../library/errors.js';
import { CacheError } from '../simulator/cache-error.js';
import { UsageError } from '../terminal/errors.js';

/**
 * What the CLI tells its user about an error a command threw: the text for stderr (without its final newline) and
 * the exit code, 2 for a mistake in what was asked for and 1 otherwise.
 */
export function describeFailure(error: unknown): { text: string; exitCode: number } {
  const message = `toolenv: ${error instanceof Error ? error.message : String(error)}`;
  if (error instanceof UsageError || error instanceof LibraryError || error instanceof CacheError)
    return { text: message, exitCode: 2 };
  const debug = process.env.TOOLENV_DEBUG && error instanceof Error ? `\n${error.stack}` : '';
  return { text: `${message}${debug}`, exitCode: 1 };
}
