import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemPrompt } from '../protocol/prompts.js';
import { PROTOCOLS } from '../wire/episodes.js';
import { UsageError } from '../terminal/errors.js';
import { runPythonJson } from './run-python.js';

export const TINY_HF_SIZES = ['tiny', 'small'] as const;
export type TinyHfSize = (typeof TINY_HF_SIZES)[number];

export interface TinyHfModel {
  dir: string;
  size: TinyHfSize;
  vocab: number;
  parameters: number;
  seed: number;
  /** Whether the model starts with the hand-wired copy circuit (python/toolenv/copy_circuit.py). */
  copy_circuit: boolean;
}

/**
 * The tiny Hugging Face model is written by the Python package (torch and transformers live there); its tokenizer
 * is trained on the protocols' system prompts (and on `corpus`, a chat-messages JSON Lines file such as the SFT
 * demonstrations, or plain text), so the text a rollout sees encodes in few tokens.
 */
export async function writeTinyHfModel(
  dir: string,
  seed: number,
  size: TinyHfSize = 'tiny',
  corpusFile?: string,
  copyCircuit = false,
): Promise<TinyHfModel> {
  const work = mkdtempSync(join(tmpdir(), 'toolenv-tiny-hf-'));
  try {
    const corpus = join(work, 'corpus.txt');
    const limits = { maxTurns: 15, maxCallsPerTurn: 3, k: 3 };
    const texts = PROTOCOLS.map((agent) => systemPrompt(agent, limits));
    if (corpusFile !== undefined) texts.push(...corpusTexts(corpusFile));
    writeFileSync(corpus, texts.join('\n'));
    const args = ['-m', 'toolenv.tiny_model', '--out', dir, '--corpus', corpus, '--seed', String(seed), '--size', size];
    const prompts = join(work, 'prompts.json');
    writeFileSync(prompts, JSON.stringify(atomicPrompts()));
    args.push('--prompts', prompts);
    if (copyCircuit) args.push('--copy-circuit');
    return runPythonJson<TinyHfModel>(args, 'writing the tiny model failed');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The system prompts the tokenizer holds as single tokens: every protocol's, for turn caps 1 to 15
 * under the default k and call cap (other limits are read as text).
 */
function atomicPrompts(): string[] {
  const prompts: string[] = [];
  for (let maxTurns = 1; maxTurns <= 15; maxTurns++)
    for (const agent of PROTOCOLS) prompts.push(systemPrompt(agent, { maxTurns, maxCallsPerTurn: 3, k: 3 }));
  return prompts;
}

/** The texts of a corpus file: each message of a chat-messages JSON Lines file, else the file's lines. */
function corpusTexts(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--corpus ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const out: string[] = [];
  for (const line of lines) {
    let row: { messages?: { content?: unknown }[] } | undefined;
    try {
      row = JSON.parse(line) as typeof row;
    } catch {
      row = undefined;
    }
    if (row && Array.isArray(row.messages)) out.push(...row.messages.map((m) => String(m.content ?? '')));
    else out.push(line);
  }
  return out;
}
