import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';

/** The command `npm run setup:python` prepares: the project's virtual environment with ToolEnv's Python package. */
export const SETUP_COMMAND = 'npm run setup:python';

/**
 * The Python that runs the engines: TOOLENV_PYTHON when set (a cluster's own environment), else the project's
 * `.venv`. Undefined when neither exists.
 */
export function pythonExecutable(): string | undefined {
  const given = process.env.TOOLENV_PYTHON;
  if (given !== undefined && given !== '') return given;
  const venv = join(packageRoot, '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : undefined;
}

export function missingPython(): string {
  return (
    `the Python side is not set up: run \`${SETUP_COMMAND}\` (creates .venv with torch, TRL and verl), or set ` +
    'TOOLENV_PYTHON to a Python that has the toolenv package'
  );
}
