import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GpuChoice } from '../../simulator/llama/engine.js';
import { heuristicPolicy } from '../heuristic/policy.js';
import type { Policy } from '../types.js';
import { ggufPolicy } from './gguf.js';
import { openaiPolicy } from './openai.js';

/** Options for the model-backed policies; the heuristic takes none. */
export interface PolicyOptions {
  /** openai: the bearer key; default `TOOLENV_POLICY_KEY`, then `OPENAI_API_KEY`. */
  apiKey?: string;
  /** openai: per request, default 120 s. */
  timeoutMs?: number;
  /** openai: retries after 429/5xx/timeouts, default 3. */
  retries?: number;
  /** openai: first backoff in ms, default 1000. */
  retryDelayMs?: number;
  /** Tokens per turn; openai default 2048, gguf 1024. */
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  /** gguf: compute back-end, default auto. */
  gpu?: GpuChoice;
  gpuLayers?: number | 'auto';
  contextSize?: number;
  /** gguf: runs generated at once, default 4. */
  parallel?: number;
  threads?: number;
  log?: (line: string) => void;
}

export const POLICY_SPECS = 'heuristic, openai:MODEL@URL or gguf:FILE';

/**
 * A policy from its spec: `heuristic`, `openai:MODEL@URL` (URL = the server root, its /v1, or the chat completions
 * endpoint; without `@URL`, `OPENAI_BASE_URL`), or `gguf:FILE`. Throws an Error naming the spec when it is not one
 * of these, or names a GGUF file that does not exist. The returned policy may be shared by concurrent runs.
 */
export async function createPolicy(spec: string, options: PolicyOptions = {}): Promise<Policy> {
  if (spec === 'heuristic') return heuristicPolicy();
  if (spec.startsWith('openai:')) {
    const rest = spec.slice('openai:'.length);
    // The server starts at the first `@scheme://` (a model name may hold `@` itself).
    const at = rest.search(/@[A-Za-z][A-Za-z0-9+.-]*:\/\//);
    const model = at === -1 ? rest : rest.slice(0, at);
    const url = at === -1 ? process.env.OPENAI_BASE_URL : rest.slice(at + 1);
    if (model === '') throw new Error(`policy ${JSON.stringify(spec)} names no model; write openai:MODEL@URL`);
    if (!url) throw new Error(`policy ${JSON.stringify(spec)} names no server; write openai:MODEL@URL (http or https) or set OPENAI_BASE_URL`);
    if (!/^https?:\/\//i.test(url)) throw new Error(`policy ${JSON.stringify(spec)}: the server URL ${url} must be http or https`);
    return openaiPolicy({
      model,
      url,
      apiKey: options.apiKey ?? process.env.TOOLENV_POLICY_KEY ?? process.env.OPENAI_API_KEY,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      retryDelayMs: options.retryDelayMs,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      seed: options.seed,
    });
  }
  if (spec.startsWith('gguf:')) {
    const file = spec.slice('gguf:'.length);
    if (file === '') throw new Error(`policy ${JSON.stringify(spec)} names no file; write gguf:FILE`);
    if (!existsSync(file)) throw new Error(`policy ${JSON.stringify(spec)}: no file ${resolve(file)}`);
    return ggufPolicy({
      file,
      gpu: options.gpu,
      gpuLayers: options.gpuLayers,
      contextSize: options.contextSize,
      parallel: options.parallel,
      threads: options.threads,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      seed: options.seed,
      log: options.log,
    });
  }
  throw new Error(`unknown policy ${JSON.stringify(spec)}: use ${POLICY_SPECS}`);
}
