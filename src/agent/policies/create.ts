import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { heuristicPolicy } from '../heuristic/policy.js';
import type { Policy } from '../types.js';
import { ggufPolicy, type GgufPolicyOptions } from './gguf.js';
import { openaiPolicy, type OpenAIPolicyOptions } from './openai.js';

/**
 * Options for the model-backed policies, each read by the policy it belongs to (see OpenAIPolicyOptions and
 * GgufPolicyOptions); the heuristic takes none. The openai key defaults to `TOOLENV_POLICY_KEY`, then `OPENAI_API_KEY`.
 */
export type PolicyOptions = Omit<OpenAIPolicyOptions, 'model' | 'url'> & Omit<GgufPolicyOptions, 'file'>;

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
    return openaiPolicy({ ...options, model, url, apiKey: options.apiKey ?? process.env.TOOLENV_POLICY_KEY ?? process.env.OPENAI_API_KEY });
  }
  if (spec.startsWith('gguf:')) {
    const file = spec.slice('gguf:'.length);
    if (file === '') throw new Error(`policy ${JSON.stringify(spec)} names no file; write gguf:FILE`);
    if (!existsSync(file)) throw new Error(`policy ${JSON.stringify(spec)}: no file ${resolve(file)}`);
    return ggufPolicy({ ...options, file });
  }
  throw new Error(`unknown policy ${JSON.stringify(spec)}: use ${POLICY_SPECS}`);
}
