import { Worker } from 'node:worker_threads';
import { withStoredBody } from '../stored-result.js';
import type { Arguments, Responded, Responder } from '../types.js';

/**
 * One call for the synthesis thread: the tool by id (the thread reads it from the same library), the arguments, the
 * seed.
 */
export interface SynthJob {
  n: number;
  tool: string;
  args: Arguments;
  seed: number;
}

/** A synthesized answer, its body as JSON text, or why there is none. */
export type SynthReply = { n: number; status: number; text: string } | { n: number; error: string };

export type ThreadedResponder = Responder & { close(): Promise<void> };

interface Waiting {
  resolve: (answer: Responded) => void;
  reject: (error: Error) => void;
}

/**
 * `serve`'s synthesizer: the same `synthesize` (same tool, arguments and seed, same body, byte for byte), run on a
 * thread of its own, so that a fresh call's synthesis — most of a cache miss's CPU — leaves the event loop to answer
 * steps and cached calls meanwhile, on another core. The calls of one turn of the event loop go out in one message
 * and come back in one. An answer's body arrives as its JSON text and stays so (a stored body, stored-result.ts): the
 * write-back, the answer and an episode's record use the text, and nothing parses it unless something reads it.
 * The thread starts on the first call, holds the process open only while calls wait, and is started anew if it dies
 * (the calls it held fail, and the pipeline answers them as a failed responder).
 */
export function threadedSynthResponder(library: string): ThreadedResponder {
  const thread = new SynthThread(library);
  return {
    name: 'synth',
    respond: (tool, args, ctx) => thread.run(tool.id, args, ctx.seed),
    close: () => thread.close(),
  };
}

class SynthThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private queued: SynthJob[] = [];
  private next = 0;

  constructor(private readonly library: string) {}

  run(tool: string, args: Arguments, seed: number): Promise<Responded> {
    return new Promise((resolve, reject) => {
      const n = ++this.next;
      this.waiting.set(n, { resolve, reject });
      if (this.waiting.size === 1) this.worker?.ref();
      if (this.queued.push({ n, tool, args, seed }) === 1) setImmediate(() => this.send());
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(): void {
    const jobs = this.queued;
    this.queued = [];
    if (jobs.length > 0) this.started().postMessage(jobs);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./thread.js', import.meta.url), { workerData: { library: this.library } });
    worker.on('message', (replies: SynthReply[]) => {
      for (const reply of replies) this.settle(reply);
    });
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`the synthesis thread exited with code ${code}`)));
    return (this.worker = worker);
  }

  private settle(reply: SynthReply): void {
    const waiting = this.waiting.get(reply.n);
    if (!waiting) return;
    this.waiting.delete(reply.n);
    if (this.waiting.size === 0) this.worker?.unref();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(withStoredBody({ status: reply.status }, reply.text));
  }

  /** The thread died: the calls it held fail; those not sent yet go to the next one. */
  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const unsent = new Set(this.queued.map((job) => job.n));
    for (const [n, waiting] of this.waiting) {
      if (unsent.has(n)) continue;
      this.waiting.delete(n);
      waiting.reject(error);
    }
  }
}
