import type { Llama } from 'node-llama-cpp';
import type { GpuChoice } from './engine.js';

/**
 * One llama.cpp runtime per process and back-end, shared by every engine that uses it. Starting one is slow (on
 * Linux node-llama-cpp first tests the prebuilt binary in a child process), and llama.cpp's log callback is global
 * to the process: two runtimes would fight over it. The runtime is disposed when its last engine lets go.
 */
interface Runtime {
  llama: Promise<Llama>;
  users: number;
  /** Where llama.cpp's warnings and errors go: every engine holding the runtime. */
  sinks: Set<(line: string) => void>;
}

const runtimes = new Map<string, Runtime>();

export interface RuntimeLease {
  llama: Llama;
  release(): Promise<void>;
}

export async function acquireRuntime(gpu: GpuChoice, log: (line: string) => void): Promise<RuntimeLease> {
  const key = gpu;
  let runtime = runtimes.get(key);
  if (!runtime) {
    const sinks = new Set<(line: string) => void>();
    runtime = { llama: start(gpu, sinks), users: 0, sinks };
    runtimes.set(key, runtime);
    runtime.llama.catch(() => runtimes.delete(key));
  }
  runtime.users++;
  runtime.sinks.add(log);
  const held = runtime;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    held.sinks.delete(log);
    if (--held.users > 0) return;
    if (runtimes.get(key) === held) runtimes.delete(key);
    await (await held.llama.catch(() => undefined))?.dispose();
  };
  try {
    return { llama: await held.llama, release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function start(gpu: GpuChoice, sinks: Set<(line: string) => void>): Promise<Llama> {
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const shown = new Set<string>([LlamaLogLevel.fatal, LlamaLogLevel.error, LlamaLogLevel.warn]);
  return getLlama({
    gpu: gpu === 'cpu' ? false : gpu,
    // Prebuilt binaries only: never compile llama.cpp, never download anything.
    build: 'never',
    skipDownload: true,
    progressLogs: false,
    // No shared thread budget: each context asks for exactly the threads its engine was given.
    maxThreads: 0,
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const text = message.trim();
      if (!text || !shown.has(level)) return;
      for (const sink of sinks) sink(`llama.cpp: ${text}`);
    },
  });
}
