import type { Tool } from '../../library/tool.js';
import { TOOL_RESPONSE_V1 } from '../prompt/tool-response.v1.js';
import type { Arguments } from '../types.js';
import type { EngineInfo, GpuChoice } from './engine.js';
import { createLlamaResponder } from './responder.js';
import { acquireRuntime } from './runtime.js';

export interface ModelBenchOptions {
  /** GGUF file (`toolenv model tiny` writes one). */
  model: string;
  /** Context sequences to measure, one run each; default [1, 4, 8]. */
  parallel?: readonly number[];
  /** Model-backed calls per run; default 16. */
  calls?: number;
  /** Most tokens per answer; default 128. */
  maxTokens?: number;
  gpu?: GpuChoice;
  gpuLayers?: number | 'auto';
  contextSize?: number;
  threads?: number;
  /** The calls to make, cycled through; default a small object-response set. */
  workload?: readonly [Tool, Arguments][];
}

export interface ModelBenchRow {
  parallel: number;
  calls: number;
  /** Calls answered by the model with a schema-valid body (the rest fell back). */
  answered: number;
  seconds: number;
  calls_per_s: number;
  /** Latency of one model-backed call, queueing excluded (each of `parallel` workers calls in turn). */
  p50_ms: number;
  p95_ms: number;
  completion_tokens: number;
  tokens_per_s: number;
  prompt_tokens_per_s: number;
}

export interface ModelBenchResult {
  model: string;
  gpu: string | false;
  prompt: string;
  /** Starting llama.cpp (on Linux node-llama-cpp first tests the prebuilt binary in a child process). */
  runtime_ms: number;
  /** Loading the model and creating its context, first run. */
  load_ms: number;
  rows: ModelBenchRow[];
}

/**
 * Throughput of model-backed calls: for each parallelism, loads the model with that many sequences, warms it with
 * one call, then has `parallel` workers make `calls` calls between them (different arguments each, no cache).
 */
export async function benchModel(options: ModelBenchOptions): Promise<ModelBenchResult> {
  const rows: ModelBenchRow[] = [];
  let first: EngineInfo | undefined;
  // Held across the runs so that llama.cpp starts once; each run still loads the model with its own sequences.
  const started = performance.now();
  const lease = await acquireRuntime(options.gpu ?? 'auto', () => {});
  const runtimeMs = performance.now() - started;
  try {
    for (const parallel of options.parallel ?? [1, 4, 8]) {
      const { info, row } = await benchRun(options, parallel);
      first ??= info;
      rows.push(row);
    }
  } finally {
    await lease.release();
  }
  return {
    model: options.model,
    gpu: lease.llama.gpu,
    prompt: TOOL_RESPONSE_V1.version,
    runtime_ms: Math.round(runtimeMs),
    load_ms: Math.round(first?.loadMs ?? 0),
    rows,
  };
}

/**
 * One run: the model loaded with `parallel` sequences, one warm-up call, then `calls` calls from `parallel` workers.
 */
async function benchRun(
  options: ModelBenchOptions,
  parallel: number,
): Promise<{ info: EngineInfo; row: ModelBenchRow }> {
  const workload = options.workload ?? DEFAULT_WORKLOAD;
  const calls = options.calls ?? 16;
  const responder = createLlamaResponder({
    model: options.model,
    gpu: options.gpu,
    gpuLayers: options.gpuLayers,
    contextSize: options.contextSize,
    threads: options.threads,
    parallel,
    maxWaiting: parallel,
    maxTokens: options.maxTokens ?? 128,
  });
  try {
    const info = await responder.engine.load();
    const [warmTool, warmArgs] = workload[0]!;
    await responder.respond(warmTool, { ...warmArgs, warm: true }, { seed: 0 });

    const before = { ...responder.stats };
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < calls; i = next++) {
        const [tool, args] = workload[i % workload.length]!;
        const t0 = performance.now();
        await responder.respond(tool, { ...args, n: i }, { seed: i });
        latencies.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const seconds = (performance.now() - started) / 1000;
    const completion = responder.stats.completionTokens - before.completionTokens;
    latencies.sort((a, b) => a - b);
    const row: ModelBenchRow = {
      parallel,
      calls,
      answered: responder.stats.answered - before.answered,
      seconds: round(seconds),
      calls_per_s: round(calls / seconds),
      p50_ms: Math.round(quantile(latencies, 0.5)),
      p95_ms: Math.round(quantile(latencies, 0.95)),
      completion_tokens: completion,
      tokens_per_s: round(completion / seconds),
      prompt_tokens_per_s: round((responder.stats.promptTokens - before.promptTokens) / seconds),
    };
    return { info, row };
  } finally {
    await responder.engine.close();
  }
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (n: number) => Math.round(n * 100) / 100;

const origin = { format: 'openai', name: 'bench' } as const;

/** Two small object responses, the kind most tools return: a record, and a list page of records. */
const DEFAULT_WORKLOAD: [Tool, Arguments][] = [
  [
    {
      id: 'bench__getUser',
      name: 'Get user',
      description: 'Returns one user account by id.',
      category: 'bench',
      parameters: { type: 'object', required: ['user_id'], properties: { user_id: { type: 'integer' } } },
      response_schema: {
        type: 'object',
        required: ['id', 'name', 'email', 'active'],
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          email: { type: 'string' },
          active: { type: 'boolean' },
        },
      },
      examples: [],
      origin,
    },
    { user_id: 7 },
  ],
  [
    {
      id: 'bench__searchProducts',
      name: 'Search products',
      description: 'Searches the product catalog; returns one page of matches.',
      category: 'bench',
      parameters: {
        type: 'object',
        required: ['q'],
        properties: { q: { type: 'string' }, limit: { type: 'integer' } },
      },
      response_schema: {
        type: 'object',
        required: ['total', 'items'],
        properties: {
          total: { type: 'integer' },
          items: {
            type: 'array',
            maxItems: 3,
            items: {
              type: 'object',
              required: ['sku', 'price'],
              properties: { sku: { type: 'string' }, price: { type: 'number' } },
            },
          },
        },
      },
      examples: [],
      origin,
    },
    { q: 'lamp', limit: 3 },
  ],
];
