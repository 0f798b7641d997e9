import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { UsageError } from '../../terminal/errors.js';
import { stagedProgress } from '../../terminal/progress.js';
import { openGraph, GraphError } from '../../graph/store.js';
import { missingLibrary } from '../../library/errors.js';
import { LibraryStore } from '../../library/store.js';
import { examplesResponder } from '../../simulator/examples.js';
import { parseJudgeSpec } from '../../rl/judge.js';
import { OpenAIGenerator } from '../../simulator/openai.js';
import { createSimulator } from '../../simulator/pipeline.js';
import { synthResponder } from '../../simulator/synth/responder.js';
import type { TaskGoal } from './candidates.js';
import { DROP_REASONS, synthesizeTasks, type DropReason } from './run.js';

export interface SynthCommandOptions {
  count: number;
  seed: number;
  /** Questions by default. */
  goal?: TaskGoal;
  serverSeed: number;
  minTools: number;
  maxTools: number;
  category?: string;
  hard: boolean;
  phrase?: string;
  phraseApiKey?: string;
  library: string;
  out?: string;
}

export interface SynthSummary {
  goal: TaskGoal;
  tasks: number;
  candidates: number;
  strata: Record<string, number>;
  kinds: Record<string, number>;
  dropped: Record<DropReason, number>;
  executed_share: number;
  rephrase?: { rewritten: number; rejected: number; failed: number; last_error?: string };
  /** Tasks asked for, when fewer could be made. */
  asked?: number;
  duration_ms: number;
  out?: string;
}

const PHRASE_PROMPT =
  'You rewrite a task request so that it reads like a person asking an assistant. Keep its meaning and every step.\n' +
  'Keep every quoted value, number, parameter name and field ' +
  'name exactly as written. Add no facts, no tool or API names.\n' +
  'Reply with one JSON object: {"query": "<the rewritten request>"}.';

/**
 * `toolenv tasks synth`: the library, its graph and a simulator as `serve` builds it (examples, then the synthesizer),
 * and the tasks written as JSON Lines.
 */
export async function synthCommand(options: SynthCommandOptions): Promise<SynthSummary> {
  const started = performance.now();
  const goal = options.goal ?? 'read';
  if (!LibraryStore.exists(options.library)) throw missingLibrary(options.library, `${options.library}/tools.db`);
  const store = LibraryStore.open(options.library);
  let graph;
  try {
    graph = openGraph(options.library);
  } catch (error) {
    store.close();
    if (error instanceof GraphError) throw new UsageError(error.message);
    throw error;
  }
  const simulator = createSimulator({
    store,
    responders: [examplesResponder, synthResponder],
    seed: options.serverSeed,
    errorRate: 0,
  });
  const progress = stagedProgress('tasks');
  let out: WriteStream | undefined;
  try {
    if (options.category !== undefined && !store.stats().categories.some((c) => c.category === options.category)) {
      throw new UsageError(
        `--category: no category ${JSON.stringify(options.category)} in ${options.library}; it has ${store
          .stats()
          .categories.map((c) => c.category)
          .join(', ')}`,
      );
    }
    // Opened before the work, so that a path it cannot write is said at once.
    if (options.out !== undefined) out = await openOut(options.out);
    const rephrase = options.phrase === undefined ? undefined : rephraser(options.phrase, options.phraseApiKey);
    const report = await synthesizeTasks({
      store,
      graph,
      simulator,
      count: options.count,
      seed: options.seed,
      goal,
      minTools: options.minTools,
      maxTools: options.maxTools,
      category: options.category,
      hard: options.hard,
      rephrase,
      onProgress: (made, total) => progress.update('synth', made, total),
    });
    progress.stop();
    if (report.tasks.length === 0) {
      const dropped = DROP_REASONS.filter((r) => report.dropped[r] > 0)
        .map((r) => `${r} ${report.dropped[r]}`)
        .join(', ');
      throw new UsageError(
        `no ${goal === 'read' ? '' : `${goal} `}task could be made` +
          `${options.category ? ` in category ${JSON.stringify(options.category)}` : ''} with ` +
          `${options.minTools}-${options.maxTools} tools (dropped: ${dropped})`,
      );
    }
    const text = report.tasks.map((task) => `${JSON.stringify(task)}\n`).join('');
    if (out) {
      out.end(text);
      await finished(out);
    } else process.stdout.write(text);
    return {
      goal,
      tasks: report.tasks.length,
      candidates: report.candidates,
      strata: report.strata,
      kinds: report.kinds,
      dropped: report.dropped,
      executed_share: Math.round(report.executed_share * 10_000) / 10_000,
      ...(rephrase ? { rephrase: report.rephrase } : {}),
      ...(report.tasks.length < options.count ? { asked: options.count } : {}),
      duration_ms: Math.round(performance.now() - started),
      ...(options.out ? { out: options.out } : {}),
    };
  } finally {
    out?.destroy();
    progress.stop();
    graph.close();
    store.close();
  }
}

/** The output file, open for writing, its folder made if new; a path that cannot be written is a usage error. */
function openOut(file: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (error) {
      reject(new UsageError(`--out ${file}: cannot write it (${(error as NodeJS.ErrnoException).code ?? error})`));
      return;
    }
    const stream = createWriteStream(file);
    stream.once('open', () => resolve(stream));
    stream.once('error', (error: NodeJS.ErrnoException) =>
      reject(new UsageError(`--out ${file}: cannot write it (${error.code ?? error.message})`)),
    );
  });
}

/** Rewrites through an OpenAI-compatible model, as schema-constrained JSON at a low temperature. */
function rephraser(spec: string, apiKey: string | undefined): (query: string) => Promise<string> {
  const { model, url } = parseJudgeSpec(spec);
  const generator = new OpenAIGenerator({ url, model, apiKey, concurrency: 4 });
  return async (query) => {
    const generation = await generator.generate({
      messages: [
        { role: 'system', content: PHRASE_PROMPT },
        { role: 'user', content: query },
      ],
      schema: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
      maxTokens: 512,
      temperature: 0.2,
      seed: 0,
      signal: AbortSignal.timeout(60_000),
    });
    const reply = JSON.parse(generation.text) as { query?: unknown };
    if (typeof reply.query !== 'string' || reply.query.trim() === '') throw new Error('no query in the rewrite');
    return reply.query.trim();
  };
}
