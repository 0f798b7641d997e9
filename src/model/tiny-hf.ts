import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemPrompt } from '../agent/prompts.js';
import { AGENTS } from '../agent/types.js';
import { UsageError } from '../cli/output.js';
import { missingPython, pythonExecutable } from '../train/python.js';

export interface TinyHfModel {
  dir: string;
  vocab: number;
  parameters: number;
  seed: number;
}

/**
 * The tiny Hugging Face model is written by the Python package (torch and transformers live there); its tokenizer
 * is trained on the protocols' system prompts, so the text a rollout sees encodes in few tokens.
 */
export async function writeTinyHfModel(dir: string, seed: number): Promise<TinyHfModel> {
  const python = pythonExecutable();
  if (python === undefined) throw new UsageError(missingPython());
  const work = mkdtempSync(join(tmpdir(), 'toolenv-tiny-hf-'));
  try {
    const corpus = join(work, 'corpus.txt');
    const limits = { maxTurns: 15, maxCallsPerTurn: 3, k: 3 };
    writeFileSync(corpus, AGENTS.map((agent) => systemPrompt(agent, limits)).join('\n'));
    const run = spawnSync(python, ['-m', 'toolenv.tiny_model', '--out', dir, '--corpus', corpus, '--seed', String(seed)], { encoding: 'utf8' });
    if (run.error) throw new UsageError(`cannot run ${python}: ${run.error.message}`);
    if (run.status !== 0) throw new Error(`writing the tiny model failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
    const last = run.stdout.trim().split('\n').pop() ?? '{}';
    return JSON.parse(last) as TinyHfModel;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
