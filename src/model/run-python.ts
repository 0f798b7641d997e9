import { spawnSync } from 'node:child_process';
import { UsageError } from '../terminal/errors.js';
import { missingPython, pythonExecutable } from '../python.js';

/**
 * Runs one of the Python package's model writers (`python -m toolenv.…`) to its end and returns the JSON object its
 * last stdout line holds. A writer that fails is reported by its own `toolenv: …` line when it printed one, else by
 * the end of its stderr, after `failure`.
 */
export function runPythonJson<T>(args: readonly string[], failure: string): T {
  const python = pythonExecutable();
  if (python === undefined) throw new UsageError(missingPython());
  const run = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (run.error) throw new UsageError(`cannot run ${python}: ${run.error.message}`);
  if (run.status !== 0) {
    const lines = run.stderr.trim().split('\n');
    const own = lines.filter((line) => line.startsWith('toolenv: ')).pop();
    throw new Error(own?.slice('toolenv: '.length) ?? `${failure}: ${lines.slice(-3).join(' ')}`);
  }
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as T;
}
