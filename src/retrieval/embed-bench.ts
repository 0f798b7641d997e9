import { availableParallelism, loadavg } from 'node:os';
import { LibraryStore } from '../library/store.js';
import { embedByLength, passageOf } from './build.js';
import { loadOnnxEmbedder, type OnnxEmbedderOptions } from './onnx-embedder.js';

export interface EmbedBenchmark {
  /** The vector file's encoder key (model and dtype). */
  model: string;
  /** Tools in the library. */
  tools: number;
  /** Passages embedded: every `step`-th tool in library order, as the index build embeds them. */
  passages: number;
  step: number;
  /** CPU time of every thread of the process per passage: what the other load on the machine moves least. */
  cpu_ms_per_passage: number;
  wall_ms_per_passage: number;
  /** The library's whole vector file at this rate, in CPU-minutes. */
  library_cpu_min: number;
  /** The same over the cores the process may use: the build's wall time on an otherwise idle machine, projected. */
  library_idle_wall_min: number;
  cores: number;
  /** The 1-minute load average at the start and the end. */
  loadavg_1m: [number, number];
}

const load = () => Math.round(loadavg()[0]! * 100) / 100;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * What the dense index build costs per tool with a local encoder, from a fixed sample of the library (every
 * step-th tool, no seed): the same passages, order and batches as `toolenv search index --retriever dense`.
 */
export async function measureEmbedding(
  libraryDir: string,
  modelDir: string,
  { sample = 1000, ...options }: { sample?: number } & OnnxEmbedderOptions = {},
): Promise<EmbedBenchmark> {
  const store = LibraryStore.open(libraryDir);
  let passages: string[];
  let tools: number;
  let step: number;
  try {
    const ids = store.ids();
    tools = ids.length;
    step = Math.max(1, Math.floor(tools / sample));
    const passage = passageOf(store);
    passages = ids.filter((_, i) => i % step === 0).map((id) => passage(store.get(id)!));
  } finally {
    store.close();
  }
  const embedder = await loadOnnxEmbedder(modelDir, options);
  try {
    // A first run allocates the session's buffers: warm it up so that the sample measures steady state.
    await embedByLength(passages.slice(0, 32), embedder);
    const loadAtStart = load();
    const cpu = cpuMs();
    const wall = performance.now();
    await embedByLength(passages, embedder);
    const cpuPer = (cpuMs() - cpu) / passages.length;
    const wallPer = (performance.now() - wall) / passages.length;
    const cores = options.threads ?? availableParallelism();
    const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
    return {
      model: embedder.key,
      tools,
      passages: passages.length,
      step,
      cpu_ms_per_passage: round(cpuPer),
      wall_ms_per_passage: round(wallPer),
      library_cpu_min: round((cpuPer * tools) / 60_000, 1),
      library_idle_wall_min: round((cpuPer * tools) / 60_000 / cores, 1),
      cores,
      loadavg_1m: [loadAtStart, load()],
    };
  } finally {
    await embedder.close();
  }
}
